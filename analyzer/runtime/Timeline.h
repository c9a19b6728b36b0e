// One process's run on one clock: the CUDA calls of every host thread and the kernels, copies and
// sets the GPU ran (CUPTI), joined by correlation id, with source locations resolved. Built from a
// ProcessLog; read by the overlap analysis (Overlap.h), the pairing with static findings
// (Pairing.h) and the HTML / Perfetto writers. All times are host CLOCK_MONOTONIC nanoseconds.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "runtime/LogReader.h"
#include "runtime/OpName.h"
#include "runtime/SpilledVector.h"
#include "runtime/TimedWindows.h"

namespace sl::runtime {

class Symbolizer;

// Where a call came from: the user's Python line, or a native file:line (or module+offset).
struct SourceLoc {
  std::string path;
  uint32_t line = 0;  // 0 when only a module is known
  std::string function;
  bool python = false;
  bool operator==(const SourceLoc& o) const { return path == o.path && line == o.line; }
};

struct HostCall {
  uint32_t tid = 0;
  slog::Api api{};
  uint64_t enterNs = 0, exitNs = 0;
  uint64_t stream = 0;  // the stream handle passed; 0 = legacy default stream
  uint64_t a0 = 0, a1 = 0, a2 = 0;  // per API class, see slog::ApiRecord
  int32_t ret = 0;
  uint32_t kind = 0;    // copy kind, grid z, NCCL datatype (slog::ApiRecord::kind)
  uint64_t corr = 0;    // the recorder's sequence number (sanitize footprints are keyed by it)
  int loc = -1;         // index into ProcessTimeline::locations; -1 = unknown
  // Calls on threads that run none of the user's code (autograd's device threads, NCCL's, a
  // DataLoader's pin-memory thread: no line, or only library lines): the user line a user thread
  // last issued a CUDA call from before this call. For backward kernels that is the `backward()`
  // line (it queues the gradient seed first).
  int attributedLoc = -1;
  bool blocking = false;  // a class that can make the host wait (isHostBlockingCandidate)
  // Began inside a GPU timing window (TimedWindows.h): its GPU work, if any, can be in the log.
  bool gpuTimed = false;
  // An asynchronous copy whose GPU record says no pageable host memory took part (pinned or
  // device memory on both sides): the driver queues it and returns, it waits for nothing.
  bool queuedOnly = false;
  // Made by c10's CUDA caching allocator for its own bookkeeping (its first native frame is in
  // libc10_cuda.so): the events it records when a block used on other streams (record_stream) is
  // freed, and its polls of them before it hands the memory out again (SL904, StreamRaces.cpp).
  bool cachingAllocator = false;
  uint32_t nameId = 0;  // the log's String id of the kernel it launched (0 unknown); fills padding
  uint64_t blockedNs() const { return exitNs > enterNs ? exitNs - enterNs : 0; }
};

struct GpuOp {
  slog::ActivityKind kind{};
  uint8_t copyKind = 0;  // CUpti_ActivityMemcpyKind: 1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP
  uint8_t srcKind = 0, dstKind = 0;  // CUpti_ActivityMemoryKind (2 pinned); 0 unknown
  uint32_t device = 0, stream = 0;  // CUPTI device and stream ids
  uint64_t startNs = 0, endNs = 0;
  uint64_t bytes = 0;
  OpName name;       // kernel name, or "copy HtoD" / "memset" (interned: OpName.h)
  int call = -1;     // index into ProcessTimeline::calls of the call that queued it; -1 unknown
};

struct StreamInfo {
  uint32_t device = 0, id = 0;  // CUPTI ids
  uint64_t handle = 0;          // the cudaStream_t seen in the launching calls
  bool handleKnown = false;
  bool legacyDefault = false;   // handle 0 or cudaStreamLegacy: serializes with blocking streams
  // From the call that created the handle: 1 blocking (default flags), 0 cudaStreamNonBlocking,
  // -1 unknown (created before recording began, or through an API the recorder does not hook).
  int blocking = -1;
  uint64_t busyNs = 0;          // union of its ops' intervals
  uint64_t firstNs = 0, lastNs = 0;
  size_t kernels = 0, copies = 0, sets = 0;
  std::string name;             // the source's variable for it (StreamNames.h); "" unknown
  std::string label() const;    // "default stream 7" / "stream 13" / "backward_stream (stream 14)"
};

struct ProcessTimeline {
  std::string logPath, host, exe;
  uint64_t pid = 0;
  int rank = -1;
  int localRank = -1, worldSize = -1, nodeRank = -1;  // -1 unknown (FileHeader)
  std::string launcher = "unknown", jobId;           // slog::launcherName; "" unknown
  // CLOCK_REALTIME - CLOCK_MONOTONIC when the recorder started: places logs of several hosts on
  // one clock (as well as NTP keeps the hosts' clocks together); 0 unknown.
  int64_t realtimeOffsetNs = 0;
  bool gpuTiming = false;   // CUPTI records present (and converted to the host clock)
  uint64_t beginNs = 0, endNs = 0;  // first and last event of either kind
  // GPU timing coverage (TimedWindows.h). Logs without switch records have no windows and were
  // timed throughout when gpuTiming.
  slog::GpuTiming gpuTimingMode = slog::GpuTiming::Unstated;  // as the trailer states it
  std::vector<TimedWindow> windows;
  // Calls that queue GPU work began outside every window: the GPU ops, streams and overlap cover
  // the windows only, not the run (host calls are recorded throughout).
  bool sampled = false;
  uint64_t timedNs = 0;  // time in [beginNs, endNs] covered by the windows
  std::vector<SourceLoc> locations;
  // Held in memory up to a set size, then in a temporary file (SpilledVector.h): read by value.
  SpilledVector<HostCall> calls;  // by enter time
  SpilledVector<GpuOp> ops;       // by start time
  std::vector<StreamInfo> streams;  // by (device, id)
  std::vector<uint32_t> pythonThreads;  // threads that issued at least one call from Python
  // Threads the recorder named (slog::ThreadRecord): the name, and the user line that started
  // the thread (index into locations; -1 unknown), through the starting threads' own starts.
  struct ThreadInfo {
    std::string name;
    int startLoc = -1;
    bool autograd() const { return name.rfind("pt_autograd", 0) == 0; }
  };
  std::map<uint32_t, ThreadInfo> threads;
  // NCCL calls' communicator, rank, size and root/peer, by the call's corr (LogReader).
  CollectiveRecords collectives;

  const StreamInfo* stream(uint32_t device, uint32_t id) const;
  uint64_t runNs() const { return endNs > beginNs ? endNs - beginNs : 0; }
  // The location a call is reported at: its own, else the attributed Python line.
  int reportLoc(const HostCall& c) const { return c.attributedLoc >= 0 ? c.attributedLoc : c.loc; }
};

// `log` must have been read with all API records and activities kept. Native locations go through
// `sym` (batched: one addr2line per module).
ProcessTimeline buildTimeline(const ProcessLog& log, Symbolizer& sym);

struct CallSite;

// A timeline built from calls and GPU records handed over one at a time, in the log's order (the
// streaming report: no ApiCall or ActivityRecord is held, only what the timeline keeps). `meta`
// is the log read without its calls and GPU records (every other record: codes, strings, clocks,
// windows, collectives); it must outlive the builder. The same timeline as buildTimeline.
class TimelineBuilder {
 public:
  explicit TimelineBuilder(const ProcessLog& meta);
  // `site`: resolveCallSite of the call (the caller resolves it once for every analysis).
  void addCall(const ApiCall& c, const CallSite& site);
  void addActivity(const slog::ActivityRecord& a);
  ProcessTimeline finish();

 private:
  const ProcessLog& meta_;
  ProcessTimeline t_;
  std::vector<SourceLoc> variants_;  // distinct sites as resolved; HostCall::loc points here until finish()
  std::map<std::tuple<std::string, uint32_t, std::string, bool>, int> variantIndex_;
  std::vector<uint32_t> pythonTids_;
  // Per op, until finish() joins the ops to their calls: CUPTI's correlation id, and the external
  // id (the launching call's corr) only once a record has one (logs of older recorders): 4 bytes
  // an op on today's logs, not 16.
  SpilledVector<uint32_t> correlationIds_;
  SpilledVector<uint64_t> externalIdsOf_;
  uint64_t activities_ = 0;
  bool externalIds_ = false;
  bool clockValid_ = false;
  double clockScale_ = 1, clockOffset_ = 0;
};

}  // namespace sl::runtime
