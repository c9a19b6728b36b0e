// The same peer copy with its join: the destination stream waits on `copy_event`. A record
// whose event goes back to the caller (returned) is the caller's to wait on.
#include <cuda_runtime.h>

struct Context {
  cudaStream_t stream;
  cudaEvent_t copy_event = nullptr;
  int device;
};

bool copy_to_peer(Context* src, Context* dst, void* to, const void* from, size_t bytes) {
  cudaMemcpyPeerAsync(to, dst->device, from, src->device, bytes, src->stream);
  if (!src->copy_event) cudaEventCreateWithFlags(&src->copy_event, cudaEventDisableTiming);
  cudaEventRecord(src->copy_event, src->stream);
  cudaStreamWaitEvent(dst->stream, src->copy_event, 0);
  return true;
}

cudaEvent_t copy_async(Context* src, void* to, const void* from, size_t bytes) {
  cudaEvent_t done;
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, src->stream);
  cudaEventRecord(done, src->stream);
  return done;
}
