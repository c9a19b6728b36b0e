// One pipeline stage of narrow Linear+GELU layers, shared by overlap_bad.cpp and overlap_fixed.cpp.
#pragma once
#include <torch/torch.h>

struct StageImpl : torch::nn::Module {
  StageImpl(int64_t hidden, int layers) {
    for (int i = 0; i < layers; ++i) {
      seq->push_back(torch::nn::Linear(hidden, hidden));
      seq->push_back(torch::nn::GELU());
    }
    register_module("seq", seq);
  }
  torch::Tensor forward(const torch::Tensor& x) { return seq->forward(x); }
  torch::nn::Sequential seq;
};
TORCH_MODULE(Stage);

struct Setup {
  int64_t hidden = 2048, tokens = 512;
  int layers = 8, steps = 10;
};
