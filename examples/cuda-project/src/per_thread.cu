// Built with --default-stream=per-thread (see CMakeLists.txt): an omitted launch stream is this
// thread's own default stream, which does not synchronize with other streams.
#include "demo.h"

__global__ void fill(float* x, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}

void run_per_thread(float* d, float* e, int n) {
  cudaStream_t side;
  cudaStreamCreate(&side);
  fill<<<(n + 255) / 256, 256>>>(d, 0.0f, n);
  fill<<<(n + 255) / 256, 256, 0, side>>>(e, 1.0f, n);
  cudaStreamDestroy(side);
}
