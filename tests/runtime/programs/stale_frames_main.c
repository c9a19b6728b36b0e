/* The user's program for stale_frames_lib.c: a shallow launch, then a deep one, from two lines. */
#include <stdio.h>

void sl_shallow_launch(void);
void sl_deep_launch(void);
static volatile int sink;

int main(void) {
  for (int i = 0; i < 3; ++i) {
    sl_shallow_launch();
    sink = 1;
    sl_deep_launch();
    sink = 2;
  }
  printf("6 launches\n");
  return 0;
}
