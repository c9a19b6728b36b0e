/* Preloaded after the recorder: asks dlsym(RTLD_NEXT) for the definition after itself, as malloc
 * shims do. The recorder exports dlsym; it must not change what RTLD_NEXT means for the caller. */
#define _GNU_SOURCE
#include <dlfcn.h>

int sl_probe(void) {
  int (*next)(void) = (int (*)(void))dlsym(RTLD_NEXT, "sl_probe");
  if (!next) return -1;
  if (next == sl_probe) return -2; /* would recurse forever */
  return next() + 1; /* 43: proves the shim ran and found the base's 42 */
}
