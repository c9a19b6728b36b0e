// The fixed overlap, in LibTorch: micro-batch 0's forward on the side stream while micro-batch 1's
// backward runs on the current stream (where its forward ran), joined with events.
#include <ATen/cuda/CUDAEvent.h>
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

  at::cuda::CUDAEvent ready, done;  // created once, recorded every step

  auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < s.steps; ++step) {
    torch::Tensor loss1 = model1->forward(x1).pow(2).mean();
    // The side stream must not start before x0 and the weights, made on the current stream, exist.
    ready.record(c10::cuda::getCurrentCUDAStream());
    ready.block(side);
    torch::Tensor loss0;
    {
      c10::cuda::CUDAStreamGuard guard(side);
      loss0 = model0->forward(x0).pow(2).mean();
    }
    loss1.backward();
    // Join: the current stream must see the forward's results before loss0's backward.
    done.record(side);
    done.block(c10::cuda::getCurrentCUDAStream());
    loss0.backward();
  }
  torch::cuda::synchronize();
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("overlap_fixed: %.2f ms/step\n", ms / s.steps);
  return 0;
}
