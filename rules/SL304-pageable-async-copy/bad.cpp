// LibTorch: non_blocking upload of an ordinary (pageable) CPU tensor.
#include <ATen/ATen.h>

at::Tensor upload(int64_t n) {
  at::Tensor cpu = at::ones({n});
  return cpu.to(at::kCUDA, /*non_blocking=*/true);  // expect: SL304
}
