/* A "library" (its file name starts with libtorch, so the recorder treats it as LibTorch) that
 * launches from a shallow and from a deep call path: the deep path's frames run over the stack
 * where the shallow launch's hook kept the user's return addresses. runtime_test.py
 * stale_frames: the deep launch must be placed at its own caller, not the shallow one's. */
#include <cuda_runtime_api.h>

static void kernel_body(void) {}
static volatile int sink;

static void launch(void) {
  dim3 grid = {1, 1, 1}, block = {32, 1, 1};
  cudaLaunchKernel((const void*)kernel_body, grid, block, 0, 0, 0);
  sink = 0;
}

void sl_shallow_launch(void) {
  launch();
  sink = 1;
}

__attribute__((noinline)) static void deeper(int k) {
  if (k) deeper(k - 1);
  else launch();
  sink = k;
}

void sl_deep_launch(void) {
  char pad[2048]; /* left as the shallow call's frames wrote it */
  __asm__ volatile("" : : "r"(pad) : "memory");
  deeper(3);
  sink = 2;
}
