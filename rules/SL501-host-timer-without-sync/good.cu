// Synchronize before reading the clock, or time on the GPU with events.
#include <chrono>
#include <cuda_runtime.h>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

double time_scale(float* d, int n, cudaStream_t stream) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) scale<<<(n + 255) / 256, 256, 0, stream>>>(d, 1.01f, n);
  cudaStreamSynchronize(stream);
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

float time_with_events(float* d, int n, cudaStream_t stream) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, stream);
  scale<<<(n + 255) / 256, 256, 0, stream>>>(d, 1.01f, n);
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  return ms;
}

double host_only() {
  // No GPU work inside the interval: nothing to wait for.
  auto t0 = std::chrono::steady_clock::now();
  volatile double s = 0;
  for (int i = 0; i < 1000; ++i) s = s + i;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
