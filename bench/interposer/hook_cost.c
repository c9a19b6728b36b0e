/* Per-call cost of the recorder's hook path on any machine: without a GPU driver the real calls
 * fail fast (error 35) and the hooks still record them, so this isolates what the recorder adds.
 * Rounds alternate paused (streamlint_recording(0): the hook passes straight through) and
 * recording host calls (2), N calls per block; prints the median of the paired differences.
 *   bench/interposer/hook_cost.sh   (builds it and runs it under `streamlint run`) */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kRounds = 101, kCalls = 20000 };

static void kernel_stub(void) {}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Two launch sites, as a program has many: the recorder caches a backtrace per site. */
__attribute__((noinline)) static void launch_a(void) {
  cudaLaunchKernel((const void*)kernel_stub, (dim3){1, 1, 1}, (dim3){32, 1, 1}, NULL, 0, 0);
}
__attribute__((noinline)) static void launch_b(void) {
  cudaLaunchKernel((const void*)kernel_stub, (dim3){2, 1, 1}, (dim3){64, 1, 1}, NULL, 0, 0);
}

static double block(int which) {
  double t0 = now_ns();
  for (int i = 0; i < kCalls; ++i) {
    if (which == 0) cudaStreamQuery(0);
    else if (i & 1) launch_a();
    else launch_b();
  }
  return (now_ns() - t0) / kCalls;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(void) {
  int (*rec)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "streamlint_recording");
  if (!rec) { fprintf(stderr, "run it under `streamlint run`\n"); return 2; }
  const char* names[] = {"cudaStreamQuery", "cudaLaunchKernel (2 sites)"};
  for (int which = 0; which < 2; ++which) {
    double paused[kRounds], diff[kRounds];
    for (int r = 0; r < kRounds; ++r) {
      double p, h;
      if (r & 1) { rec(2); h = block(which); rec(0); p = block(which); }
      else { rec(0); p = block(which); rec(2); h = block(which); }
      paused[r] = p;
      diff[r] = h - p;
    }
    qsort(paused, kRounds, sizeof(double), cmp);
    qsort(diff, kRounds, sizeof(double), cmp);
    printf("%-28s paused %6.0f ns/call, recording +%4.0f ns/call (IQR %.0f..%.0f)\n", names[which],
           paused[kRounds / 2], diff[kRounds / 2], diff[kRounds / 4], diff[3 * kRounds / 4]);
  }
  rec(0);
  return 0;
}
