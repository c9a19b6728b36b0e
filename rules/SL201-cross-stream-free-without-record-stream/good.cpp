// LibTorch: tell the caching allocator about the side stream before the temporary dies.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
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
    c10::cuda::CUDACachingAllocator::recordStream(scale.storage().data_ptr(), side);
  }
  return out;
}

// Or make the allocating stream wait for the side stream before the free.
at::Tensor joined(const at::Tensor& x) {
  at::Tensor scale = at::ones_like(x);
  at::Tensor out = at::empty_like(x);
  auto main = at::cuda::getCurrentCUDAStream();
  auto side = at::cuda::getStreamFromPool();
  at::cuda::CUDAEvent ready, done;
  ready.record(main);
  {
    c10::cuda::CUDAStreamGuard guard(side);
    ready.block(side);
    at::mul_out(out, x, scale);
    done.record(side);
  }
  done.block(main);
  return out;
}

// An early return on the fast path: the side-stream use and its recordStream sit together on
// the other path.
at::Tensor maybe_side(const at::Tensor& x, bool fast) {
  at::Tensor scale = at::ones_like(x);
  if (fast) return x * scale;
  auto side = at::cuda::getStreamFromPool();
  at::cuda::CUDAEvent ready;
  ready.record(at::cuda::getCurrentCUDAStream());
  c10::cuda::CUDAStreamGuard guard(side);
  ready.block(side);
  at::Tensor out = x * scale;
  scale.record_stream(side);
  out.record_stream(side);
  return out;
}
