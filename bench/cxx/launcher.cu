// A mid-sized CUDA TU (c10/cuda + ATen/cuda headers, ~1-2 s to parse): the unit of the -j bench.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime.h>

__global__ void scale_kernel(float* x, float a, int64_t n) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n) x[i] *= a;
}

void scale(float* x, float a, int64_t n) {
  auto side = at::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard guard(side);
  scale_kernel<<<(n + 255) / 256, 256, 0, side>>>(x, a, n);
}
