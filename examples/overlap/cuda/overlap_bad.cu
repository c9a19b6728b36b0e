// Two independent pieces of GPU work per step that could run side by side, written the way that
// keeps them apart: `side` is created with default flags (a blocking stream) and the other work
// goes to the legacy default stream, which waits for all blocking streams and makes them wait
// for it. streamlint: SL601 statically; SL905 and SL902 when recorded with `streamlint run`.
#include <cstdio>

#include <cuda_runtime.h>

// Spins `iters` dependent multiply-adds per thread: a kernel that keeps a few SMs busy for a
// fixed time, so that two of them fit on the GPU at once.
__global__ void busy(float* x, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.001f;
  x[i] = v;
}

int main() {
  const int blocks = 16, threads = 256, iters = 100000, steps = 20;
  const size_t bytes = blocks * threads * sizeof(float);
  float *a = nullptr, *b = nullptr;
  cudaMalloc(&a, bytes);
  cudaMalloc(&b, bytes);
  cudaMemset(a, 0, bytes);
  cudaMemset(b, 0, bytes);
  cudaStream_t side;
  cudaStreamCreate(&side);
  for (int step = 0; step < steps; ++step) {
    busy<<<blocks, threads, 0, side>>>(a, iters);
    busy<<<blocks, threads>>>(b, iters);
  }
  cudaError_t err = cudaDeviceSynchronize();
  printf("overlap_bad: %s\n", cudaGetErrorString(err));
  cudaStreamDestroy(side);
  cudaFree(a);
  cudaFree(b);
  return err == cudaSuccess ? 0 : 1;
}
