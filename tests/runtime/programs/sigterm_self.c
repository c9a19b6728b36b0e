/* Dies of a signal (SIGTERM, or argv[1]) after CUDA calls: the log must still be complete and the
 * exit status the same as without the recorder. */
#include <cuda_runtime_api.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  cudaDeviceSynchronize();
  cudaStreamSynchronize(0);
  raise(argc > 1 ? atoi(argv[1]) : SIGTERM);
  pause();
  return 0;
}
