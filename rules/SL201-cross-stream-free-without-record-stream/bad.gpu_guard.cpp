// A project that builds for CPU and GPU keeps its stream code behind its own switch. With no
// compile command, streamlint analyses the GPU configuration (WITH_CUDA defined, said in a note
// on the finding): the temporary used under the side-stream guard dies without recordStream.
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
  }
#else
  at::mul_out(out, x, scale);
#endif
  return out;
}  // expect: SL201
