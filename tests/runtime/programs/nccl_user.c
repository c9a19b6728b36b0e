/* Calls NCCL through the dynamic linker, as libtorch_cuda.so does (linked to libnccl.so.2). */
#include <stddef.h>

int ncclAllReduce(const void* send, void* recv, size_t count, int datatype, int op, void* comm, void* stream);

int run_allreduce(void) {
  static float send[4] = {1, 2, 3, 4}, recv[4];
  int rc = ncclAllReduce(send, recv, 4, /*ncclFloat32*/ 7, /*ncclSum*/ 0, (void*)0x1234, NULL);
  return rc == 0 && recv[3] == 4 ? 0 : 1;
}
