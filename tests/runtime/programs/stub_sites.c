/* One kernel stub called from two lines, as nvcc's __device_stub__ functions are: the stub's
 * return address is the same for both, so the recorder must find the stub's caller to keep the
 * two launch sites apart (runtime_test.py stub_sites reads the recorded frames). Built at -O0 and
 * at -O2 (no frame pointers in the stub). */
#include <cuda_runtime_api.h>
#include <stdio.h>

static void kernel_body(void) {}
static volatile int sink;

__attribute__((noinline)) static void stub(unsigned n) {
  dim3 grid = {n, 1, 1}, block = {32, 1, 1};
  cudaLaunchKernel((const void*)kernel_body, grid, block, NULL, 0, 0);
  sink = 0;
}
__attribute__((noinline)) static void line_a(void) {
  stub(1);
  sink = 1; /* no tail call: line_a stays on the stack */
}
__attribute__((noinline)) static void line_b(void) {
  stub(2);
  sink = 2;
}

int main(void) {
  for (int i = 0; i < 50; ++i) {
    line_a();
    line_b();
  }
  printf("100 launches\n");
  return 0;
}
