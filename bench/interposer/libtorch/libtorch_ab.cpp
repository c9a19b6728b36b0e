// In-process A/B of the recorder on a LibTorch program, run under `streamlint run`: blocks of a
// training step (4 x 2048 MLP, AdamW, batch 512) and of a loop of 200 tiny elementwise ops
// alternate paused (streamlint_recording(0): hooks pass through) and recording host calls (2), in
// rotating order, each block timed between device synchronizations. Prints the median paired
// slowdown per workload. Run it twice, with and without SL_STACK_SCAN=0, to price the stack scan
// that finds the user's line beneath LibTorch's frames.
//   streamlint run --out /tmp/lt -- ./libtorch_ab [ROUNDS]
#include <dlfcn.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace {

double blockMs(const std::function<void()>& fn, int calls) {
  torch::cuda::synchronize();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) fn();
  torch::cuda::synchronize();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / calls;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 200;
  auto rec = reinterpret_cast<int (*)(int)>(dlsym(RTLD_DEFAULT, "streamlint_recording"));
  if (!rec) {
    fprintf(stderr, "libtorch_ab: run it under `streamlint run`\n");
    return 2;
  }
  torch::manual_seed(0);
  torch::nn::Sequential model;
  for (int i = 0; i < 4; ++i) {
    model->push_back(torch::nn::Linear(2048, 2048));
    model->push_back(torch::nn::GELU());
  }
  model->push_back(torch::nn::Linear(2048, 10));
  model->to(torch::kCUDA);
  torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-4));
  auto x = torch::randn({512, 2048}, torch::kCUDA);
  auto y = torch::randint(0, 10, {512}, torch::TensorOptions().device(torch::kCUDA).dtype(torch::kLong));
  auto step = [&] {
    auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
    opt.zero_grad();
    loss.backward();
    opt.step();
  };
  auto t = torch::ones({1024}, torch::kCUDA);
  auto tiny = [&] {
    for (int i = 0; i < 200; ++i) t = t * 1.0001 + 0.0001;
  };
  struct Work { const char* name; std::function<void()> fn; int calls; };
  std::vector<Work> work = {{"training step", step, 5}, {"200 tiny ops", tiny, 3}};
  for (int i = 0; i < 10; ++i)
    for (auto& w : work) w.fn();
  for (auto& w : work) {
    std::vector<double> slow;
    for (int r = 0; r < rounds; ++r) {
      double ms[2];
      for (int k = 0; k < 2; ++k) {
        int mode = (k + r) % 2 ? 2 : 0;
        rec(mode);
        w.fn();  // untimed: the first call after a switch
        ms[mode == 2] = blockMs(w.fn, w.calls);
      }
      slow.push_back(100.0 * (ms[1] / ms[0] - 1));
    }
    rec(0);
    double base = blockMs(w.fn, w.calls * 10);
    std::sort(slow.begin(), slow.end());
    printf("%-14s paused %.3f ms, recording %+.2f %% [IQR %+.2f, %+.2f] (%d rounds)\n", w.name, base,
           median(slow), slow[slow.size() / 4], slow[slow.size() * 3 / 4], rounds);
  }
  rec(1);
  return 0;
}
