/* Closes descriptors it did not open, as daemons do, then opens its own output file (which gets
 * the lowest free number) and keeps calling CUDA: the recorder must never write into that file.
 *   close_fds OUTPUT low|all    low: closes 3..255; all: every descriptor above 2 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void pause_ms(int ms) {
  struct timespec t = {0, ms * 1000000L};
  nanosleep(&t, NULL);  /* the recorder's writer drains every 2 ms */
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  cudaDeviceSynchronize(); /* the log opens here */
  pause_ms(20);
  if (strcmp(argv[2], "all") == 0) syscall(SYS_close_range, 3u, ~0u, 0u);
  else for (int fd = 3; fd < 256; ++fd) close(fd);
  int out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0) return 3;
  const char first[] = "first line\n", second[] = "second line\n";
  write(out, first, sizeof first - 1);
  for (int i = 0; i < 50; ++i) cudaStreamSynchronize(0);
  pause_ms(20);
  write(out, second, sizeof second - 1);
  close(out);
  printf("output fd %d\n", out);
  return 0;
}
