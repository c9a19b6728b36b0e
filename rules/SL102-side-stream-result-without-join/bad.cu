// A side stream's result is read on another stream with no join.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime.h>

__global__ void fill(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f;
}

void copy_back(float* d_y, float* h_y, int n) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  fill<<<(n + 255) / 256, 256, 0, s>>>(d_y, n);
  // cudaMemcpy runs on the legacy stream, which does not wait for a non-blocking stream.
  cudaMemcpy(h_y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost);  // expect: SL102
}

at::Tensor square_then_sum(const at::Tensor& x) {
  at::Tensor out = at::empty_like(x);
  auto side = at::cuda::getStreamFromPool();
  {
    c10::cuda::CUDAStreamGuard guard(side);
    at::mul_out(out, x, x);
  }
  return out.sum();  // expect: SL102
}
