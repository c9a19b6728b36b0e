// Queue everything on the side stream, join, and read on the host afterwards.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime.h>

float side_stats(const at::Tensor& x) {
  auto side = at::cuda::getStreamFromPool();
  at::cuda::CUDAEvent ready, done;
  ready.record(at::cuda::getCurrentCUDAStream());
  at::Tensor peak;
  {
    c10::cuda::CUDAStreamGuard guard(side);
    ready.block(side);
    peak = at::relu(x).max();
    done.record(side);
  }
  done.block(at::cuda::getCurrentCUDAStream());
  return peak.item<float>();
}
