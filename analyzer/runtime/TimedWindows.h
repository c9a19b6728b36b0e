// When a process's GPU work was timed. CUPTI's per-kernel cost is too high to leave on, so the
// recorder runs it in windows (sampled GPU timing: by default the first 2 s, then 100 ms of every
// 2 s) and logs each switch (slog::WindowRecord). A call's GPU work can be in the log only when the
// call began inside a window; outside them the host calls are still recorded. Logs without switch
// records (all written before windows existed) were timed from the first CUDA call on.
#pragma once
#include <cstdint>
#include <vector>

#include "streamlint/LogFormat.h"

namespace sl::runtime {

struct ProcessLog;
struct ProcessTimeline;

struct TimedWindow {
  uint64_t beginNs = 0;  // the `on` switch's tBefore
  uint64_t endNs = 0;    // the next `off` switch's tAfter; the log's last event when there is none
  slog::WindowReason openedBy{}, closedBy{};
  bool closed = false;   // false: the log ends inside the window (killed, or no `off` record)
};

// The windows a log's switches (sorted by tBefore) describe, in time order. Repeated `on`s (or
// `off`s) change nothing; an `on` without an `off` stays open until UINT64_MAX.
std::vector<TimedWindow> timedWindows(const std::vector<slog::WindowRecord>& switches);
// The window containing `ns`, or -1.
int windowContaining(const std::vector<TimedWindow>& windows, uint64_t ns);
// The last window begun at or before `ns`, or -1: a GPU op may run on past its window's end.
int windowBegunBy(const std::vector<TimedWindow>& windows, uint64_t ns);

// Calls whose GPU work CUPTI reports: kernels, copies, sets (graph launches: their kernels).
bool queuesGpuWork(slog::Api api);

// Before GPU ops are joined to calls: t.windows, t.gpuTimingMode, each call's gpuTimed (true for
// all calls of a log without windows) and t.sampled.
void markGpuTimed(ProcessTimeline& t, const ProcessLog& log);
// Once t.gpuTiming, t.beginNs and t.endNs are known: open windows end at the log's end, t.timedNs,
// and no call counts as timed in a log without windows and without GPU timing.
void finishGpuCoverage(ProcessTimeline& t);

}  // namespace sl::runtime
