// The same GPU configuration, with the temporary recorded on the side stream before it dies.
#include <ATen/ATen.h>
#ifdef WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#endif

at::Tensor scaled(const at::Tensor& x) {
  at::Tensor scale = at::ones_like(x);
  at::Tensor out = at::empty_like(x);
#ifdef WITH_CUDA
  auto side = at::cuda::getStreamFromPool();
  at::cuda::CUDAEvent ready;
  ready.record(at::cuda::getCurrentCUDAStream());
  {
    c10::cuda::CUDAStreamGuard guard(side);
    ready.block(side);
    at::mul_out(out, x, scale);
    scale.record_stream(side);
  }
#else
  at::mul_out(out, x, scale);
#endif
  return out;
}
