// The fixed version of overlap_bad.cu: both pieces of work on their own non-blocking streams, so
// neither waits for the other, and one synchronization at the end. Recorded with `streamlint
// run`, the two streams overlap for most of their busy time.
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
  cudaStream_t first, second;
  cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking);
  cudaMemsetAsync(a, 0, bytes, first);
  cudaMemsetAsync(b, 0, bytes, second);
  for (int step = 0; step < steps; ++step) {
    busy<<<blocks, threads, 0, first>>>(a, iters);
    busy<<<blocks, threads, 0, second>>>(b, iters);
  }
  cudaError_t err = cudaDeviceSynchronize();
  printf("overlap_fixed: %s\n", cudaGetErrorString(err));
  cudaStreamDestroy(first);
  cudaStreamDestroy(second);
  cudaFree(a);
  cudaFree(b);
  return err == cudaSuccess ? 0 : 1;
}
