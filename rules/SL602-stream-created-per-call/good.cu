// Create once (an object's constructor) and reuse.
#include <cuda_runtime.h>

__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2;
}

class Runner {
 public:
  Runner() {
    cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&done_, cudaEventDisableTiming);
  }
  ~Runner() {
    cudaEventDestroy(done_);
    cudaStreamDestroy(stream_);
  }
  void step(float* d, int n) {
    for (int i = 0; i < 10; ++i) {
      scale<<<(n + 255) / 256, 256, 0, stream_>>>(d, n);
      cudaEventRecord(done_, stream_);
    }
    cudaEventSynchronize(done_);
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t done_;
};

// A demo step that only main calls, once: it runs a fixed number of times (cuda-samples
// simpleCudaGraphs, streamOrderedAllocation, graphMemoryNodes).
void demo_step(float* d, int n) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  scale<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
}

void demo_captured(float* d, int n) {
  demo_step(d, n);  // called once from a function main calls once
}

int main() {
  float* d;
  cudaMalloc(&d, 1024 * sizeof(float));
  demo_step(d, 1024);
  demo_captured(d, 1024);
  cudaFree(d);
  return 0;
}

// A constructor's loop creates one event per stream of the object it builds: set-up, once per
// object, not once per call of the work (whisper.cpp's ggml_cuda_concurrent_event).
struct Branches {
  cudaStream_t streams[4];
  cudaEvent_t done[4];
  Branches() {
    for (int i = 0; i < 4; ++i) {
      cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking);
      cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming);
    }
  }
};
