// Async host-to-device copies from pageable memory block the host for the whole transfer.
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

void upload(float* d, int n, cudaStream_t stream) {
  std::vector<float> staging(n, 1.0f);
  cudaMemcpyAsync(d, staging.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream);  // expect: SL304
  float* h = static_cast<float*>(std::malloc(n * sizeof(float)));
  cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, stream);  // expect: SL304
  float* fresh = new float[n];
  cudaMemcpyAsync(d, fresh, n * sizeof(float), cudaMemcpyHostToDevice, stream);  // expect: SL304
  cudaStreamSynchronize(stream);
  std::free(h);
  delete[] fresh;
}
