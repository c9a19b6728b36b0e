// Sanitize mode (SL_SANITIZE=1, `streamlint run --sanitize`): what SL904 needs beyond the default
// recording. Per launch, the parameter words that point into device memory (AccessRecord, right
// after the launch's ApiRecord); per thread, a GapRecord when the ring dropped records (a lost
// wait would read as a race, so the report judges nothing in that window); the caching
// allocator's block trace, handed over by the Python side at exit (streamlint_block_trace).
// Copies, memsets, event and stream calls need nothing more: their ApiRecords are exact.
//
// Off (the default), the hot path pays one predictable branch on g_sanitize per call.
// No locks anywhere here: a driver call made from a hook may re-enter CUDA (and CUPTI
// callbacks), so the per-launch work uses only the thread's own caches and relaxed atomics.
#pragma once
#include "Recorder.h"

namespace sl::ip {

extern bool g_sanitize;  // read once at start (readConfig)
void sanitizeConfig();

// Arguments of the launch being recorded, stashed by the launch hooks' fill (sanitize only).
enum class KernelHandle : uint8_t { Kernel, Function, FunctionOrKernel, HostStub };
struct LaunchArgs {
  const void* kernel = nullptr;
  void** params = nullptr;
  void** extra = nullptr;
  KernelHandle kind = KernelHandle::Kernel;
};
extern __thread LaunchArgs t_launch __attribute__((tls_model("initial-exec")));
inline void stashLaunch(const void* k, void** params, void** extra, KernelHandle kind) {
  if (__builtin_expect(g_sanitize, 0)) t_launch = {k, params, extra, kind};
}

// NCCL calls (NcclHooks.cpp), in every mode: the fill stashes what the CollectiveRecord written
// after the ApiRecord needs.
struct CollectiveArgs {
  void* comm = nullptr;
  int32_t peer = -1;
  uint8_t op = 0xff;
};
extern __thread CollectiveArgs t_collective __attribute__((tls_model("initial-exec")));
void collectiveAfter(ThreadState* ts, const slog::ApiRecord* r);

// After a hooked call's record was committed (`r`, or nullptr when it was dropped). `footprint`
// false: a launch writes no AccessRecord (streamlint_recording's kSkipFootprint, for measuring).
void sanitizeAfter(ThreadState* ts, const slog::ApiRecord* r, slog::ApiClass cls, int rc, bool footprint);

// The caching allocator's trace into the log: n entries of six words (action, addr, size,
// stream, device, realtime ns), from the Python side (streamlint_block_trace) or LibTorch's
// snapshot at exit (LibTorchBlocks.cpp).
void writeBlockTrace(const uint64_t* e, size_t n);

}  // namespace sl::ip
