// LibTorch training loop reading the loss every step.
#include <ATen/ATen.h>

float train(at::Tensor w, const at::Tensor& x, int steps) {
  float last = 0;
  for (int step = 0; step < steps; ++step) {
    at::Tensor loss = at::mse_loss(at::matmul(x, w), x);
    w.sub_(loss * 0.01);
    last = loss.item<float>();  // expect: SL302
  }
  return last;
}
