/* Calls through the real libcudart (on CI without a driver every call fails with 35, but it is a
 * real call): SL901 must name each call's line, with the right number of calls. The `expect:`
 * comments are read by runtime_test.py. */
#include <cuda_runtime_api.h>
#include <stdio.h>

static void wait_for(cudaStream_t s) {
  for (int i = 0; i < 3; ++i)
    cudaStreamSynchronize(s); /* expect: cudaStreamSynchronize 3 */
}

int main(void) {
  void* p = NULL;
  wait_for(0);
  cudaError_t e = cudaMalloc(&p, 1 << 20); /* expect: cudaMalloc 1 */
  cudaDeviceSynchronize(); /* expect: cudaDeviceSynchronize 1 */
  printf("cudaMalloc returned %d\n", (int)e);
  return 0;
}
