// Page-locked sources: cudaMallocHost, or pageable memory registered with cudaHostRegister.
#include <cstdlib>
#include <cuda_runtime.h>

void upload(float* d, int n, cudaStream_t stream) {
  float* pinned = nullptr;
  cudaMallocHost(&pinned, n * sizeof(float));
  cudaMemcpyAsync(d, pinned, n * sizeof(float), cudaMemcpyHostToDevice, stream);
  float* h = static_cast<float*>(std::malloc(n * sizeof(float)));
  cudaHostRegister(h, n * sizeof(float), cudaHostRegisterDefault);
  cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, stream);
  cudaStreamSynchronize(stream);
  cudaHostUnregister(h);
  std::free(h);
  cudaFreeHost(pinned);
}
