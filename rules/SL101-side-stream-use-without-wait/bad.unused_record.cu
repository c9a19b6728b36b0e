// A layer that runs its prefill on an auxiliary stream, forked from the main stream with an
// event and joined back with another. The fork's wait is missing: `ready_` is recorded on the
// main stream and nothing waits on it, so the auxiliary stream's kernels can read `qkv` before
// the main stream has written it.
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
    cudaEventRecord(ready_, stream);  // expect: SL101
    attention(qkv, out, n, aux_);
    cudaEventRecord(done_, aux_);
    cudaStreamWaitEvent(stream, done_, 0);
  }

 private:
  cudaStream_t aux_ = nullptr;
  cudaEvent_t ready_ = nullptr, done_ = nullptr;
};
