// A two-stage pipeline on a private stream, with the mistakes streamlint looks for.
#include "demo.h"

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

__global__ void shift(float* x, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += b;
}

void run_pipeline(const float* host, float* out, int n, int steps) {
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  const int blocks = (n + 255) / 256;
  float* d = nullptr;
  cudaMallocAsync(&d, n * sizeof(float), stream);
  cudaMemcpyAsync(d, host, n * sizeof(float), cudaMemcpyHostToDevice, stream);
  for (int s = 0; s < steps; ++s) {
    scale<<<blocks, 256, 0, stream>>>(d, 0.5f, n);
    shift<<<blocks, 256>>>(d, 1.0f, n);  // legacy stream, unordered with `stream`
    cudaStreamSynchronize(stream);       // host waits every step
  }
  cudaMemcpyAsync(out, d, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
  cudaFreeAsync(d, stream);
  cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
}
