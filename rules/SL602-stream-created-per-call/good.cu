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
