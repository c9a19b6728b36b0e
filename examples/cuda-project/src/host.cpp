// Host-side staging compiled by the C++ compiler (not nvcc): page-locked buffers, async copy.
#include <cstdlib>

#include "demo.h"

void stage_host(int n) {
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  float* pinned = nullptr;
  cudaMallocHost(&pinned, n * sizeof(float));
  float* pageable = static_cast<float*>(std::malloc(n * sizeof(float)));
  float* d = nullptr;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpyAsync(d, pinned, n * sizeof(float), cudaMemcpyHostToDevice, stream);
  cudaMemcpyAsync(d, pageable, n * sizeof(float), cudaMemcpyHostToDevice, stream);  // blocks the host
  cudaStreamSynchronize(stream);
  cudaFree(d);
  cudaFreeHost(pinned);
  std::free(pageable);
  cudaStreamDestroy(stream);
}
