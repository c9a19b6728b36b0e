// The one path every hooked call takes (runtime symbols and driver pointers alike):
//   1. nested calls (cudart calling the driver, CUPTI calling CUDA, our own helpers) pass
//      straight through: t_depth is the recursion guard;
//   2. where the call comes from is read: the Python line, the native return address (a short
//      backtrace for calls that block, taken before they block, while the GPU still works);
//   3. the real function runs with its arguments and its result untouched;
//   4. one record goes to the calling thread's ring: times, result, stream, pointers, frames.
#pragma once
#include <execinfo.h>
#include <string.h>

#include <atomic>
#include <new>

#include "Backtrace.h"
#include "GpuWindows.h"
#include "PythonFrames.h"
#include "Recorder.h"
#include "Sanitize.h"
#include "UserFrames.h"

#define SL_EXPORT extern "C" __attribute__((visibility("default")))

namespace sl::ip {

extern std::atomic<void*> g_real[size_t(slog::Api::Count)];
void* resolveReal(slog::Api api);  // RTLD_NEXT lookup, cached in g_real
void* ncclSymbol(const char* name);  // libnccl.so.2's own definition, wherever it was loaded
inline void* realFor(slog::Api api) {
  void* p = g_real[size_t(api)].load(std::memory_order_relaxed);
  return p ? p : resolveReal(api);
}

// CUPTI side (Cupti.cpp, GpuWindows.cpp).
void cuptiStartOnce();        // lazy start at the first recorded call
extern std::atomic<bool> g_paused;  // streamlint_recording(0): hooks pass straight through
// Parts of the recording left out, for measuring what each costs (streamlint_recording's flags,
// GpuWindows.cpp): calls are still recorded, without what the flag names.
enum SkipPart : uint8_t {
  kSkipPython = 1,      // no Python line (ApiRecords without pyCode)
  kSkipBacktrace = 2,   // native frames: the return address only (no backtrace, no launch-site walk)
  kSkipFootprint = 4,   // sanitize mode: no launch footprints (AccessRecords)
};
extern std::atomic<uint8_t> g_skipParts;

// Experiment switches, set through streamlint_tune() in SL_KNOBS builds (bench/interposer).
struct Knobs {
  bool python = true;  // Python line capture
  bool names = true;   // kernel name lookup
};
extern Knobs g_knobs;

uint32_t kernelNameId(ThreadState* ts, slog::Api api, const void* handle);
void noteResult(slog::Api api, int rc);

inline bool blocksHost(slog::ApiClass c) {
  using C = slog::ApiClass;
  return c == C::Sync || c == C::Alloc || c == C::Free || c == C::Copy || c == C::Set ||
         c == C::StreamLife;
}

// The return address of the function that called the hooked function's caller (for a native
// launch: the line that called nvcc's kernel stub). backtrace() of 3 frames found it in ~2 µs per
// launch; instead, the first launch from each stub call site learns where that address sits in
// the stub's frame (a fixed distance above `raSlot`, the slot of the hook's own return address,
// for code without alloca) and later launches read it there. Sites where that cannot be
// established (the word is not found, or appears twice) keep using backtrace(). Inlined into the
// hook, so that backtrace()'s frames are [hook, stub, stub's caller].
__attribute__((always_inline)) inline const void* stubCaller(ThreadState* ts, void* ra, void** raSlot) {
  constexpr int kReach = 64;  // words above raSlot: the stub's frame
  // The hook keeps a frame pointer: [rbp + 8] is its return address.
  StubCacheEntry* s = raSlot[0] == ra ? ts->stubCache.find(ra) : nullptr;
  if (s && s->slot > 0) return raSlot[s->slot];
  void* shallow[3];
  if (backtrace(shallow, 3) != 3) return nullptr;
  if (!s && raSlot[0] == ra && shallow[1] == ra) {
    int slot = 0;
    for (int k = 1; k <= kReach; ++k) {  // reads stop at the caller's slot, inside live frames
      if (raSlot[k] != shallow[2]) continue;
      slot = k;
      break;
    }
    for (int k = slot + 1; slot && k <= kReach && k < slot + 8; ++k)
      if (raSlot[k] == shallow[2]) slot = 0;  // ambiguous: keep unwinding for this site
    ts->stubCache.claim(ra)->slot = int16_t(slot);
  }
  return shallow[2];
}

// A native process's call from a library (LibTorch: the user's line is 10-30 frames up, beyond
// backtrace()'s cheap reach): frames = [ra, the user's return addresses found on the stack
// (UserFrames.h)], instead of a backtrace of library frames. False (frames untouched) when no
// user frame is found.
// A scan reads up to 64 KiB of stack; its result is cached per (call site, stack depth): the same
// path through the library puts the user's return addresses in the same slots, so later calls
// read those slots (whatever line called now) and check that each still holds a return address
// into the user's code made by a call to the same function, else scan again: a slot can hold a
// stale return address (a dead frame of an earlier call), which would place the launch at the
// earlier call's line (seen on the H200: LibTorch launches from one line attributed to another). A thread that never runs the user's code (autograd's
// device threads) stops being scanned after kGiveUp scans that found nothing.
inline bool userFramesFromStack(ThreadState* ts, const TextRanges& text, void* ra, void** frames, int& nf,
                                const uintptr_t* raSlot) {
  constexpr uint32_t kGiveUp = 64;
  constexpr int kCandidates = 4;
  constexpr size_t kScanWords = 8192;
  if (!ts->userSeen && ts->scans >= kGiveUp) return false;
  auto sp = reinterpret_cast<uintptr_t>(raSlot);
  // Only on the thread's own stack: a call on an alternate signal stack is not scanned (the
  // words above it need not be mapped).
  if (!onThreadStack(ts, sp)) return false;
  uintptr_t depth = ts->stackTop - sp;
  const void* key = mixKey(ra, depth);
  ScanCacheEntry* e = ts->scanCache.find(key);
  bool valid = e != nullptr;
  for (int i = 0; valid && i < e->n; ++i) {
    uintptr_t v = raSlot[e->slot[i]];
    valid = isReturnInto(text, v) && directCallee(v) == e->callee[i];
  }
  if (!valid) {
    size_t words = depth / sizeof(uintptr_t);
    const uintptr_t* at[kCandidates];
    int n = scanForReturns(text, raSlot, raSlot + (words < kScanWords ? words : kScanWords), at, kCandidates);
    ++ts->scans;
    if (n) ts->userSeen = true;
    if (!e) e = ts->scanCache.claim(key);  // a stale entry is refilled, not doubled
    e->n = uint8_t(n);
    for (int i = 0; i < n; ++i) e->slot[i] = uint16_t(at[i] - raSlot), e->callee[i] = directCallee(*at[i]);
  }
  if (!e->n) return false;
  frames[0] = ra;
  for (int i = 0; i < e->n; ++i) frames[1 + i] = reinterpret_cast<void*>(raSlot[e->slot[i]]);
  nf = 1 + e->n;
  return true;
}

// Zeroes n words of a stack array with stores the compiler cannot drop as dead.
inline void scrub(void** words, int n) {
  for (int i = 0; i < n; ++i) static_cast<void* volatile*>(words)[i] = nullptr;
}

// backtrace() leaves the return addresses it walked in the unwinder's dead frames below ours;
// they are wiped too (4 KiB, only after a backtrace, which is rare: blocking calls and the
// first launch of a site).
__attribute__((noinline)) inline void scrubBelow() {
  uint64_t pad[512];  // 4 KiB: the unwinder's frames (contexts, frame state) fit in it
  __builtin_memset(pad, 0, sizeof pad);
  asm volatile("" : : "r"(pad) : "memory");  // the stores are the point: keep them
}

template <class Fn, class Fill, class... A>
__attribute__((always_inline)) inline auto hookCall(slog::Api api, uint8_t flags, Fn real, void* ra,
                                                    const void* kernel, Fill&& fill, A... args) {
  if (t_depth > 0 || g_paused.load(std::memory_order_relaxed)) return real(args...);
  ThreadState* ts = threadState();
  if (!ts) return real(args...);
  ++t_depth;
  cuptiStartOnce();
  slog::ApiClass cls = slog::apiClass(api);
  uint64_t corr = nextCorrelation();
  bool tsc = g_tscClock;
  // Where the call comes from (its Python line, its native frames), before the real call: a
  // blocking call's backtrace (~1.6 µs) then runs while the GPU still works on what the call will
  // wait for, instead of after the wait, when the GPU has run dry and every µs adds to the step.
  // The frames are the same on either side of the call (the thread is in it); the call's own
  // time (t0..t1) leaves this out as before.
  uint32_t pyCode = 0, pyOffset = 0;
  uint8_t skip = g_skipParts.load(std::memory_order_relaxed);
  bool py = !(skip & kSkipPython) && g_knobs.python && capturePython(ts, pyCode, pyOffset);
  void* frames[slog::kMaxFrames + 1];
  int nf = 1;
  frames[0] = ra;
  uint8_t scanned = 0;
  // A native program's call comes from the user's code (nvcc's kernel stub, a direct cudart call)
  // or from a library (LibTorch); without the user's code ranges (scans off), as from the user's.
  bool native = !py && !pythonProcess() && !(skip & kSkipBacktrace);
  const TextRanges* text = native ? userText() : nullptr;
  bool libraryCall = text && !text->contains(reinterpret_cast<uintptr_t>(ra));
  void** raSlot = static_cast<void**>(__builtin_frame_address(0)) + 1;  // the hook keeps a frame pointer
  if (libraryCall && userFramesFromStack(ts, *text, ra, frames, nf, reinterpret_cast<const uintptr_t*>(raSlot))) {
    scanned = slog::kScannedFrames;  // the user's frames are in
  } else if (skip & kSkipBacktrace) {
    // measuring the parts' cost: the return address alone
  } else if (blocksHost(cls)) {
    // A short backtrace lets the report walk out of torch/cudart frames (Backtrace.h: cached).
    nf = blockingFrames(ts, ra, raSlot, frames, scrubBelow);
  } else if (cls == slog::ApiClass::Launch && !py) {
    // A native launch's return address is mostly nvcc's per-kernel stub, not the line the user
    // wrote. One full backtrace per launch site (then cached) finds that caller. When the stub is
    // in the user's code the site is the stub's return address plus its caller's (stubCaller, so
    // one kernel launched from two lines stays two sites); for a library's launch no user frame
    // was found for (autograd's threads, in Python processes too), the return address alone.
    const void* key = ra;
    if (native && !libraryCall) key = mixKey(ra, reinterpret_cast<uintptr_t>(stubCaller(ts, ra, raSlot)));
    StackCacheEntry* e = ts->stackCache.find(key);
    if (!e) {
      int n = backtrace(frames, slog::kMaxFrames + 1);
      scrubBelow();
      e = ts->stackCache.claim(key);
      e->n = n > 1 ? uint8_t(n - 1) : 0;
      if (e->n) memcpy(e->frames, frames + 1, sizeof(void*) * e->n);
      frames[0] = ra;
    }
    if (e->n) {
      memcpy(frames, e->frames, sizeof(void*) * e->n);
      nf = e->n;
    }
  }
  uint64_t t0 = tsc ? __rdtsc() : nowNs();
  if (__builtin_expect(t0 >= g_windowDue.load(std::memory_order_relaxed), 0)) {
    windowTick();                       // GPU timing switches on or off before this call,
    t0 = tsc ? __rdtsc() : nowNs();     // and the switch's time is not the call's
  }
  auto rc = real(args...);
  uint64_t t1 = tsc ? __rdtsc() : nowNs();
  // Before reserving the record: a first-seen kernel emits its String record into the ring.
  uint32_t nameId = kernel && g_knobs.names ? kernelNameId(ts, api, kernel) : 0;
  size_t bytes = sizeof(slog::ApiRecord) + sizeof(uint64_t) * nf;
  const slog::ApiRecord* written = nullptr;
  if (char* p = reserve(ts, bytes)) {
    auto* r = new (p) slog::ApiRecord{};
    r->h = {slog::RecType::Api, uint16_t(bytes)};
    r->api = api;
    r->flags = uint8_t(flags | scanned | (py ? slog::kHasPython : 0) |
                       (tsc ? kTscTimes : 0));
    r->nframes = uint8_t(nf);
    r->tEnter = t0;
    r->tExit = t1;
    r->ret = int32_t(rc);
    r->pyCode = pyCode;
    r->pyOffset = pyOffset;
    r->corr = corr;
    r->nameId = nameId;
    fill(*r);
    memcpy(p + sizeof(slog::ApiRecord), frames, sizeof(uint64_t) * nf);
    commit(ts, bytes);
    written = r;
  }
  // The user's return addresses must not outlive this call on the stack: a later call whose
  // library path is deeper runs its library frames over this spot, and its stack scan would take
  // them for its own (a LibTorch launch from line 23 placed at line 16, the previous launch's).
  scrub(frames, nf);
  // Sanitize mode: the launch's footprint, allocation spans, lost-record windows (Sanitize.h).
  if (__builtin_expect(g_sanitize, 0)) sanitizeAfter(ts, written, cls, int(rc), !(skip & kSkipFootprint));
  if (cls == slog::ApiClass::Collective) collectiveAfter(ts, written);  // NCCL (rare calls)
  if (rc != 0) noteResult(api, int(rc));
  --t_depth;
  return rc;
}

inline uint64_t u64(const void* p) { return reinterpret_cast<uint64_t>(p); }

}  // namespace sl::ip
