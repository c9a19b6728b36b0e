// Streams and events created on every call or every iteration.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAEvent.h>
#include <cuda_runtime.h>

__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2;
}

void step(float* d, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);  // expect: SL602
  scale<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
}

void timed_loop(float* d, int n, cudaStream_t s) {
  for (int i = 0; i < 10; ++i) {
    cudaEvent_t done;
    cudaEventCreate(&done);  // expect: SL602
    scale<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    cudaEventRecord(done, s);
    cudaEventSynchronize(done);
    cudaEventDestroy(done);
  }
}

void torch_loop(const at::Tensor& x) {
  for (int i = 0; i < 10; ++i) {
    at::cuda::CUDAEvent ev;  // expect: SL602
    ev.record();
  }
}

void per_size(float* d, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);  // expect: SL602
  scale<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
}

int main() {
  float* d;
  cudaMalloc(&d, 1 << 20);
  for (int n = 1024; n <= (1 << 18); n *= 2) per_size(d, n);  // called in a loop: every call pays
  cudaFree(d);
  return 0;
}
