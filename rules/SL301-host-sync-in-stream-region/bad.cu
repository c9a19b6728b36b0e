// Host synchronization while a side stream is current: the region cannot overlap anything.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime.h>

float side_stats(const at::Tensor& x) {
  auto side = at::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard guard(side);
  at::Tensor y = at::relu(x);
  float peak = y.max().item<float>();  // expect: SL301
  at::Tensor host = y.cpu();  // expect: SL301
  cudaStreamSynchronize(side);  // expect: SL301
  cudaDeviceSynchronize();  // expect: SL301
  return peak + host.numel();
}

// The helper's check throws on bad input; every call that returns has synchronized.
void drain(cudaStream_t s, int pending) {
  TORCH_CHECK(pending >= 0, "pending must be non-negative");
  cudaStreamSynchronize(s);
}

at::Tensor side_relu(const at::Tensor& x) {
  auto side = at::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard guard(side);
  at::Tensor y = at::relu(x);
  drain(side, 1);  // expect: SL301
  return y;
}
