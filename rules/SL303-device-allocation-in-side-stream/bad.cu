// A LibTorch CUDA launcher that allocates while a pool stream is current.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

__global__ void square(const float* x, float* y, int64_t n) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i];
}

at::Tensor square_on_side(const at::Tensor& x) {
  auto side = at::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard guard(side);
  at::Tensor y = at::empty_like(x);  // expect: SL303
  float* scratch = nullptr;
  cudaMalloc(&scratch, 1 << 20);  // expect: SL303
  square<<<(x.numel() + 255) / 256, 256, 0, side>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  cudaFree(scratch);
  return y;
}
