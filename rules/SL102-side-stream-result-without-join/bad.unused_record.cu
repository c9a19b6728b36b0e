// A peer copy between two devices' streams, whose consumer is the destination stream. The
// join is missing: `copy_event` is recorded on the source stream after the copy and nothing
// waits on it, so the destination stream's next kernels can read `dst` before it arrives.
#include <cuda_runtime.h>

struct Context {
  cudaStream_t stream;
  cudaEvent_t copy_event = nullptr;
  int device;
};

bool copy_to_peer(Context* src, Context* dst, void* to, const void* from, size_t bytes) {
  cudaMemcpyPeerAsync(to, dst->device, from, src->device, bytes, src->stream);
  if (!src->copy_event) cudaEventCreateWithFlags(&src->copy_event, cudaEventDisableTiming);
  cudaEventRecord(src->copy_event, src->stream);  // expect: SL102
  return true;
}
