// Allocate on the current stream before switching; the side stream only computes.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>

__global__ void square(const float* x, float* y, int64_t n) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i];
}

at::Tensor square_on_side(const at::Tensor& x) {
  at::Tensor y = at::empty_like(x);
  auto side = at::cuda::getStreamFromPool();
  at::cuda::CUDAEvent ready;
  ready.record(at::cuda::getCurrentCUDAStream());
  {
    c10::cuda::CUDAStreamGuard guard(side);
    ready.block(side);
    square<<<(x.numel() + 255) / 256, 256, 0, side>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  }
  return y;
}
