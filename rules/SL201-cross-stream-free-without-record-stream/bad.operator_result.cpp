// LibTorch: a tensor made by an arithmetic operator on the current stream is copied to the host
// on a side stream, then dies at the closing brace with no recordStream: the current stream's
// pool can hand its block to new work while the side stream's copy still reads it.
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
  }
  return big;
}  // expect: SL201
