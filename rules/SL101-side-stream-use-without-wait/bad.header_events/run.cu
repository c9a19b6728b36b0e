// The branch streams never wait for the fork event: they can read `x` before the main stream
// has written it.
#include "fork.cuh"

__global__ void use(const float* x, float* y, int n) { if (threadIdx.x < n) y[threadIdx.x] = x[threadIdx.x]; }

// `x` is written on `main` by the caller: the fork event marks that point.
void run(Fork& f, cudaStream_t main, std::vector<cudaStream_t>& branches, const float* x, float* y, int n) {
  cudaEventRecord(f.forked, main);  // expect: SL101
  for (size_t i = 0; i < branches.size(); ++i) use<<<1, 32, 0, branches[i]>>>(x, y + i * n, n);
  for (size_t i = 0; i < branches.size(); ++i) {
    cudaEventRecord(f.joined[i], branches[i]);
    cudaStreamWaitEvent(main, f.joined[i], 0);
  }
}
