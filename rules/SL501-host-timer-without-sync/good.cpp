// LibTorch: synchronize the device before closing the interval.
#include <chrono>
#include <torch/torch.h>

double bench_matmul(const torch::Tensor& a, int iters) {
  torch::cuda::synchronize();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) {
    auto c = torch::matmul(a, a);
  }
  torch::cuda::synchronize();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count() / iters;
}
