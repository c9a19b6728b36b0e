// The same layer with its fork: the auxiliary stream waits on `ready_` before its kernels.
// An event the file does not create (a caller's, handed in) may be waited on by its owner,
// and an event used for timing is consumed by cudaEventElapsedTime.
#include <cuda_runtime.h>

void attention(const float* qkv, float* out, int n, cudaStream_t stream);  // another file

class Layer {
 public:
  Layer() {
    cudaStreamCreateWithFlags(&aux_, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&done_, cudaEventDisableTiming);
  }
  ~Layer() {
    cudaEventDestroy(ready_);
    cudaEventDestroy(done_);
    cudaStreamDestroy(aux_);
  }
  void forward(const float* qkv, float* out, int n, cudaStream_t stream) {
    cudaEventRecord(ready_, stream);
    cudaStreamWaitEvent(aux_, ready_, 0);
    attention(qkv, out, n, aux_);
    cudaEventRecord(done_, aux_);
    cudaStreamWaitEvent(stream, done_, 0);
  }

 private:
  cudaStream_t aux_ = nullptr;
  cudaEvent_t ready_ = nullptr, done_ = nullptr;
};

void mark(cudaEvent_t handed, cudaStream_t stream) { cudaEventRecord(handed, stream); }

float timed(const float* qkv, float* out, int n, cudaStream_t stream) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, stream);
  attention(qkv, out, n, stream);
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms;
}
