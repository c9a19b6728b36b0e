// Timing kernel launches with std::chrono: the interval ends before the GPU does.
#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

double time_scale(float* d, int n, cudaStream_t stream) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) scale<<<(n + 255) / 256, 256, 0, stream>>>(d, 1.01f, n);
  auto t1 = std::chrono::steady_clock::now();  // expect: SL501
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

void report(float* d, int n) {
  auto start = std::chrono::high_resolution_clock::now();
  cudaMemsetAsync(d, 0, n * sizeof(float), cudaStreamPerThread);
  auto end = std::chrono::high_resolution_clock::now();  // expect: SL501
  std::printf("%f\n", std::chrono::duration<double>(end - start).count());
}
