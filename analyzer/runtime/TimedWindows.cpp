#include "runtime/TimedWindows.h"

#include <algorithm>

#include "runtime/LogReader.h"
#include "runtime/Timeline.h"

namespace sl::runtime {

std::vector<TimedWindow> timedWindows(const std::vector<slog::WindowRecord>& switches) {
  std::vector<TimedWindow> out;
  bool on = false;
  for (const auto& s : switches) {
    if (bool(s.on) == on) continue;
    on = s.on;
    if (on) {
      TimedWindow w;
      w.beginNs = s.tBefore;
      w.endNs = UINT64_MAX;
      w.openedBy = s.why;
      out.push_back(w);
    } else {
      out.back().endNs = std::max(s.tAfter, out.back().beginNs);
      out.back().closedBy = s.why;
      out.back().closed = true;
    }
  }
  return out;
}

int windowBegunBy(const std::vector<TimedWindow>& windows, uint64_t ns) {
  auto it = std::upper_bound(windows.begin(), windows.end(), ns,
                             [](uint64_t v, const TimedWindow& w) { return v < w.beginNs; });
  return int(it - windows.begin()) - 1;
}

int windowContaining(const std::vector<TimedWindow>& windows, uint64_t ns) {
  int i = windowBegunBy(windows, ns);
  return i >= 0 && ns < windows[size_t(i)].endNs ? i : -1;
}

bool queuesGpuWork(slog::Api api) {
  using C = slog::ApiClass;
  switch (slog::apiClass(api)) {
    case C::Launch: case C::GraphLaunch: case C::Copy: case C::CopyAsync: case C::Set: case C::SetAsync:
      return true;
    default:
      return false;
  }
}

void markGpuTimed(ProcessTimeline& t, const ProcessLog& log) {
  t.gpuTimingMode = log.trailer ? slog::GpuTiming(log.trailer->gpuTiming) : slog::GpuTiming::Unstated;
  t.windows = timedWindows(log.windows);
  if (t.windows.empty()) {
    t.calls.forEachUpdate([](HostCall& c) { c.gpuTimed = true; });
    return;
  }
  // Work queued after timing stopped for the process's exit is not a gap in the sampling: logs
  // without windows were not timed there either.
  uint64_t exitNs = UINT64_MAX;
  if (t.windows.back().closed && t.windows.back().closedBy == slog::WindowReason::Exit)
    exitNs = t.windows.back().endNs;
  t.calls.forEachUpdate([&](HostCall& c) {
    c.gpuTimed = windowContaining(t.windows, c.enterNs) >= 0;
    if (!c.gpuTimed && c.enterNs < exitNs && queuesGpuWork(c.api)) t.sampled = true;
  });
}

void finishGpuCoverage(ProcessTimeline& t) {
  if (t.windows.empty()) {
    if (!t.gpuTiming)
      t.calls.forEachUpdate([](HostCall& c) { c.gpuTimed = false; });
    t.timedNs = t.gpuTiming ? t.runNs() : 0;
    return;
  }
  for (auto& w : t.windows) {
    if (!w.closed) w.endNs = std::max(w.beginNs, t.endNs);
    uint64_t b = std::max(w.beginNs, t.beginNs), e = std::min(w.endNs, t.endNs);
    if (e > b) t.timedNs += e - b;
  }
}

}  // namespace sl::runtime
