// Work on one stream consumes what another stream produces, with nothing ordering the two.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime.h>

__global__ void produce(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = float(i);
}

__global__ void consume(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2 * x[i];
}

void two_streams(float* x, float* y, int n) {
  cudaStream_t a, b;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  produce<<<(n + 255) / 256, 256, 0, a>>>(x, n);
  consume<<<(n + 255) / 256, 256, 0, b>>>(x, y, n);  // expect: SL101
}

at::Tensor side_sin(const at::Tensor& x) {
  at::Tensor y = at::mul(x, 2);  // queued on the current stream
  auto side = at::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard guard(side);
  at::Tensor z = at::sin(y);  // expect: SL101
  return z;
}
