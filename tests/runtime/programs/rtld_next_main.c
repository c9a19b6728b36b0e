#include <stdio.h>
int sl_probe(void);
int main(void) {
  printf("sl_probe=%d\n", sl_probe());
  return 0;
}
