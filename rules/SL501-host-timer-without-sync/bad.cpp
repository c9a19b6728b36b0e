// LibTorch: timing tensor ops from C++ with a host clock.
#include <chrono>
#include <torch/torch.h>

double bench_matmul(const torch::Tensor& a, int iters) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) {
    auto c = torch::matmul(a, a);
  }
  auto t1 = std::chrono::steady_clock::now();  // expect: SL501
  return std::chrono::duration<double>(t1 - t0).count() / iters;
}
