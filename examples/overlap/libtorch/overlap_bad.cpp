// The user's forward/backward overlap, in LibTorch: micro-batch 1's backward() inside a side-stream
// guard. Autograd runs each backward op on the stream its forward op used, so the guard moves only
// the gradient seed to `side`; everything else stays on the default stream and nothing overlaps.
// streamlint: SL401 statically; SL903 and SL902 when recorded with `streamlint run`.
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>

#include "stage.h"

int main() {
  Setup s;
  torch::manual_seed(0);
  at::globalContext().setAllowTF32CuBLAS(false);
  Stage model0(s.hidden, s.layers), model1(s.hidden, s.layers);
  model0->to(torch::kCUDA);
  model1->to(torch::kCUDA);
  auto opts = torch::TensorOptions().device(torch::kCUDA);
  torch::Tensor x0 = torch::randn({s.tokens, s.hidden}, opts);
  torch::Tensor x1 = torch::randn({s.tokens, s.hidden}, opts.requires_grad(true));
  c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();

  auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < s.steps; ++step) {
    torch::Tensor loss1 = model1->forward(x1).pow(2).mean();
    {
      c10::cuda::CUDAStreamGuard guard(side);
      loss1.backward();
    }
    torch::Tensor loss0 = model0->forward(x0).pow(2).mean();
    c10::cuda::getCurrentCUDAStream().synchronize();
    side.synchronize();
    loss0.backward();
  }
  torch::cuda::synchronize();
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("overlap_bad: %.2f ms/step\n", ms / s.steps);
  return 0;
}
