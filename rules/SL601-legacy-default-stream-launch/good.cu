// Launches name their stream; a file that uses no streams at all may use the default one.
#include <cuda_runtime.h>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

void pipeline(float* d_x, int n, cudaStream_t stream) {
  int blocks = (n + 255) / 256;
  scale<<<blocks, 256, 0, stream>>>(d_x, 2.0f, n);
  cudaMemsetAsync(d_x, 0, n * sizeof(float), stream);
  // Per-thread default streams do not synchronize with other streams.
  scale<<<blocks, 256, 0, cudaStreamPerThread>>>(d_x, 2.0f, n);
  // A blocking copy is not a launch: its cost is SL301/SL302's business.
  float first = 0;
  cudaMemcpy(&first, d_x, sizeof(float), cudaMemcpyDeviceToHost);
}
