// LibTorch: a temporary used by ATen ops under a side-stream guard dies at the closing brace.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>

at::Tensor scaled_on_side(const at::Tensor& x) {
  at::Tensor scale = at::ones_like(x);
  at::Tensor out = at::empty_like(x);
  auto side = at::cuda::getStreamFromPool();
  at::cuda::CUDAEvent ready;
  ready.record(at::cuda::getCurrentCUDAStream());
  {
    c10::cuda::CUDAStreamGuard guard(side);
    ready.block(side);
    at::mul_out(out, x, scale);
    at::add_out(out, out, scale);  // a second use: still one finding where it dies
  }
  return out;
}  // expect: SL201
