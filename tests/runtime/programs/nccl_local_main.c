/* dlopens argv[1] RTLD_LOCAL (as Python loads torch's extension modules) and runs its all-reduce:
 * libnccl.so.2 is then in a local scope, where the recorder's RTLD_NEXT does not reach. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  void* h = dlopen(argv[1], RTLD_LOCAL | RTLD_NOW);
  if (!h) { fprintf(stderr, "%s\n", dlerror()); return 2; }
  int (*run)(void) = (int (*)(void))dlsym(h, "run_allreduce");
  int rc = run ? run() : 2;
  printf("allreduce rc=%d\n", rc);
  return rc;
}
