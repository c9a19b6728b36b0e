/* A parent and a forked child both call CUDA: each must write its own log with its own calls. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  cudaDeviceSynchronize();
  pid_t pid = fork();
  if (pid == 0) {
    cudaStreamSynchronize(0);
    cudaStreamSynchronize(0);
    return 0;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  cudaDeviceSynchronize();
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
