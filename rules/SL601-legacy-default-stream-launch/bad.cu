// Plain CUDA that creates its own stream but still launches on the legacy default stream.
#include <cuda_runtime.h>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

void pipeline(float* d_x, int n) {
  cudaStream_t copy_stream;
  cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking);
  int blocks = (n + 255) / 256;
  scale<<<blocks, 256>>>(d_x, 2.0f, n);  // expect: SL601
  scale<<<blocks, 256, 0, 0>>>(d_x, 2.0f, n);  // expect: SL601
  scale<<<blocks, 256, 0, nullptr>>>(d_x, 2.0f, n);  // expect: SL601
  scale<<<blocks, 256, 0, cudaStreamLegacy>>>(d_x, 2.0f, n);  // expect: SL601
  cudaMemsetAsync(d_x, 0, n * sizeof(float));  // expect: SL601
  scale<<<blocks, 256, 0, copy_stream>>>(d_x, 2.0f, n);
  cudaStreamSynchronize(copy_stream);
  cudaStreamDestroy(copy_stream);
}
