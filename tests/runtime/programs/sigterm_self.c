/* Dies of SIGTERM after a CUDA call: the log must still be complete and the exit status the same. */
#include <cuda_runtime_api.h>
#include <signal.h>
#include <unistd.h>

int main(void) {
  cudaDeviceSynchronize();
  cudaStreamSynchronize(0);
  raise(SIGTERM);
  pause();
  return 0;
}
