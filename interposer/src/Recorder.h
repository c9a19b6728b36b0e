// The recorder's core: per-thread rings, the background writer, the log file, and the process
// events (exit, fatal signals, fork) handled in one place. Hooks only call reserve()/commit().
//
// Hot path: threadState() is one TLS load and one compare; reserve()/commit() touch only the
// calling thread's ring (one acquire load, one release store). No locks, no allocation, no
// syscalls. The slow path (a thread's first record, a new process after fork) may lock.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <x86intrin.h>

#include "PtrCache.h"
#include "streamlint/LogFormat.h"

namespace sl::ip {

inline uint64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);  // vDSO when the clock source allows it, else a syscall
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// Hook timestamps. With an invariant TSC the hooks read the time stamp counter (a few ns, where
// clock_gettime can be a system call in a VM) and mark the record; whoever moves the record from
// the ring to the file converts it to CLOCK_MONOTONIC first (Recorder.cpp), so the log format
// does not change. g_tscClock is chosen once at start (SL_CLOCK=mono|tsc overrides).
extern bool g_tscClock;
inline constexpr uint8_t kTscTimes = 0x80;  // ring-internal ApiRecord flag, cleared on the way out
inline uint64_t hookNow() { return g_tscClock ? __rdtsc() : nowNs(); }

struct CodeCacheEntry {
  const void* key = nullptr;  // the code object
  int32_t firstLine = 0;
  uint32_t id = 0;
  bool skip = false;  // a frame inside torch: walk outward past it
};
struct NameCacheEntry {
  const void* key = nullptr;  // the kernel handle
  uint32_t id = 0;
};

struct StackCacheEntry {
  const void* key = nullptr;  // the launch site: return address (mixed with its caller's)
  uint8_t n = 0;
  void* frames[slog::kMaxFrames];
};

// A blocking call's frames (Backtrace.h) and the stack words holding them.
struct BacktraceCacheEntry {
  const void* key = nullptr;  // the call's return address and the stack depth at the hook
  uint8_t n = 0;              // frames (0: not cacheable, unwind every time)
  uint16_t slot[slog::kMaxFrames] = {};  // words above the hook's return-address slot
  void* frames[slog::kMaxFrames];
};

struct StubCacheEntry {
  const void* key = nullptr;  // a return address inside a kernel stub
  int16_t slot = 0;           // words from the hook's return-address slot to the stub's; 0: unknown
};

struct ScanCacheEntry {
  const void* key = nullptr;  // a library's call site and the stack depth at the hook
  uint8_t n = 0;              // user frames found (0: none)
  uint16_t slot[4] = {};      // where, in words above the hook's return-address slot
  uintptr_t callee[4] = {};   // the direct call before each return address (0: indirect)
};

// A kernel's parameter sizes (sanitize mode: Sanitize.cpp), in bytes, capped at 65535.
inline constexpr int kMaxParams = 48;
struct ParamCacheEntry {
  const void* key = nullptr;  // the kernel handle
  uint8_t n = 0;
  bool known = false;
  uint16_t size[kMaxParams];
};

// One thread's ring and caches. The owning thread advances `head`, the writer advances `tail`.
struct ThreadState {
  char* ring = nullptr;
  uint64_t ringBytes = 0;
  std::atomic<uint64_t> head{0};
  std::atomic<uint64_t> tail{0};
  std::atomic<uint64_t> dropped{0};
  std::atomic<uint64_t> records{0};
  std::atomic<bool> exited{false};  // owner thread ended; recycle once drained
  std::atomic<bool> free{false};    // may be claimed by a new thread
  uint32_t tid = 0;
  uint64_t generation = 0;          // process generation (bumped in a fork child)
  ThreadState* next = nullptr;      // global list, push-only
  PtrCache<CodeCacheEntry, 512> codeCache;   // 2048 Python code objects (PythonFrames.cpp)
  PtrCache<NameCacheEntry, 64> nameCache;    // 256 kernel names (DriverHooks.cpp)
  PtrCache<StackCacheEntry, 64> stackCache;  // 256 native launch sites (Hooks.h)
  PtrCache<StubCacheEntry, 32> stubCache;    // 128 stub call sites (Hooks.h stubCaller)
  PtrCache<ScanCacheEntry, 64> scanCache;    // 256 (site, depth) pairs (Hooks.h userFramesFromStack)
  PtrCache<BacktraceCacheEntry, 32> btCache; // 128 (site, depth) pairs of blocking calls (Backtrace.h)
  // Stack scans for the user's frames (Hooks.h userFramesFromStack; native processes only).
  uintptr_t stackLo = 0, stackTop = 0;  // the thread's stack; top 0: not looked up, 1: unknown
  uint32_t scans = 0;      // scans made on this thread
  bool userSeen = false;   // one of them found the user's frame
  // Sanitize mode only (Sanitize.h): kernels' parameter layouts, and when this thread's ring
  // first dropped a record since the last GapRecord (0: none).
  PtrCache<ParamCacheEntry, 32> paramCache;  // 128 kernels
  uint64_t gapFromNs = 0;
};

extern std::atomic<uint64_t> g_generation;
extern bool g_sanitize;  // Sanitize.h
extern __thread ThreadState* t_state __attribute__((tls_model("initial-exec")));
extern __thread int t_depth __attribute__((tls_model("initial-exec")));

ThreadState* threadStateSlow();  // nullptr when recording is off for this process

inline ThreadState* threadState() {
  ThreadState* ts = t_state;
  if (__builtin_expect(ts != nullptr && ts->generation == g_generation.load(std::memory_order_relaxed), 1))
    return ts;
  return threadStateSlow();
}

// Space for one record of `bytes` (multiple of 8) in the caller's ring, or nullptr (counted as
// a drop) when the ring is full.
inline char* reserve(ThreadState* ts, size_t bytes) {
  uint64_t head = ts->head.load(std::memory_order_relaxed);
  uint64_t tail = ts->tail.load(std::memory_order_acquire);
  uint64_t off = head & (ts->ringBytes - 1);
  uint64_t pad = off + bytes > ts->ringBytes ? ts->ringBytes - off : 0;
  if (ts->ringBytes == 0 || head + pad + bytes - tail > ts->ringBytes) {
    ts->dropped.fetch_add(1, std::memory_order_relaxed);
    if (g_sanitize && !ts->gapFromNs) ts->gapFromNs = nowNs();  // an ordering edge may be lost
    return nullptr;
  }
  if (pad) {  // records never straddle the ring's end: fill the rest with a Pad record
    auto* h = reinterpret_cast<slog::RecHeader*>(ts->ring + off);
    h->type = slog::RecType::Pad;
    h->bytes = uint16_t(pad);  // pad < bytes: records are small
    ts->head.store(head + pad, std::memory_order_release);
    off = 0;
  }
  return ts->ring + off;
}
inline void commit(ThreadState* ts, size_t bytes) {
  // Only the owning thread writes `records`: a plain increment, no locked instruction.
  ts->records.store(ts->records.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  ts->head.store(ts->head.load(std::memory_order_relaxed) + bytes, std::memory_order_release);
}

uint64_t nextCorrelation();
uint32_t nextStringId();

// Rare records (messages, modules, clock calibration, CUPTI activity) written directly to the
// file by the calling thread, outside any ring. Not for hook hot paths.
void writeDirect(const void* records, size_t bytes);
// Prints "streamlint: <text>" once per key to stderr and records it in the log.
void notice(const char* key, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

bool recordingEnabled();
// The log is open: some thread of this process made a CUDA call.
bool recordingOn();
void ensureStarted();      // opens the log and starts the writer (lazy: first CUDA call)
void flushAndClose();      // exit path; idempotent
uint32_t pythonVersion();  // Py_Version of this process, 0 when not Python

// Called by the CUPTI side for the trailer.
void setCuptiState(slog::CuptiState s);
void setGpuTiming(slog::GpuTiming t);
void addActivityDropped(uint64_t n);
void noteBytes(int64_t delta);  // memory held outside rings (CUPTI buffers), for the cap
bool underCap(uint64_t extra);

}  // namespace sl::ip
