// bad.operator_result.cpp with recordStream: the allocator keeps the block until the side
// stream's copy is done.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>

at::Tensor offload_scaled(const at::Tensor& big, at::Tensor& host) {
  auto side = at::cuda::getStreamFromPool();
  auto cur = at::cuda::getCurrentCUDAStream();
  at::Tensor scaled = big * 2;
  at::cuda::CUDAEvent ready;
  ready.record(cur);
  {
    c10::cuda::CUDAStreamGuard guard(side);
    ready.block(side);
    host.copy_(scaled, /*non_blocking=*/true);
    scaled.record_stream(side);
  }
  return big;
}
