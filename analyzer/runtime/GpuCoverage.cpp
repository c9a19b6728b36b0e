#include "runtime/GpuCoverage.h"

#include <algorithm>
#include <cstdio>

#include "runtime/RuntimeRules.h"

namespace sl::runtime {

namespace {

// As SL_GPU_TIMING spells the modes.
const char* modeName(slog::GpuTiming m) {
  switch (m) {
    case slog::GpuTiming::Continuous: return "always";
    case slog::GpuTiming::Sampled: return "sampled";
    case slog::GpuTiming::Off: return "off";
    default: return "unstated";
  }
}

bool anyEdge(const ProcessTimeline& t, slog::WindowReason why) {
  return std::any_of(t.windows.begin(), t.windows.end(), [&](const TimedWindow& w) {
    return w.openedBy == why || (w.closed && w.closedBy == why);
  });
}

std::string processName(const ProcessTimeline& t) {
  return "pid " + std::to_string(t.pid) + (t.rank >= 0 ? " rank " + std::to_string(t.rank) : "");
}

}  // namespace

std::string coverageSummary(const ProcessTimeline& t) {
  if (t.gpuTimingMode == slog::GpuTiming::Off) return "GPU timing off (SL_GPU_TIMING=off): host calls only";
  if (!t.sampled) return "";
  // Windows come from the sampling schedule unless the program or a profiler switched CUPTI.
  std::string s = t.gpuTimingMode == slog::GpuTiming::Sampled ? "GPU timing sampled: "
                                                              : "GPU timing on part of the run: ";
  s += std::to_string(t.windows.size()) + (t.windows.size() == 1 ? " window, " : " windows, ") +
       humanTime(double(t.timedNs)) + " of " + humanTime(double(t.runNs())) + " (" +
       percentText(t.runNs() ? double(t.timedNs) / double(t.runNs()) : 0.0) + ")";
  if (anyEdge(t, slog::WindowReason::Yield)) s += ", until a profiler took CUPTI";
  s += anyEdge(t, slog::WindowReason::Program)
           ? "; the program switched recording itself (streamlint_recording())"
           : "; host calls recorded throughout";
  return s;
}

void Coverage::add(const ProcessTimeline& t) {
  if (!t.sampled) return;
  processes++;
  timedNs += t.timedNs;
  runNs += t.runNs();
}

Coverage coverageOf(const ProcessTimeline& t) {
  Coverage c;
  c.add(t);
  return c;
}

std::string Coverage::inWindows() const {
  if (!sampled()) return "";
  return "in the timed windows (" + humanTime(double(timedNs)) + " of " + humanTime(double(runNs)) +
         (processes > 1 ? " over " + std::to_string(processes) + " processes" : "") + ")";
}

void Coverage::describe(nlohmann::json& properties) const {
  if (!sampled()) return;
  properties["gpuTiming"] = {{"mode", "sampled"},
                             {"timedMicros", double(timedNs) / 1e3},
                             {"runMicros", double(runNs) / 1e3},
                             {"processes", processes}};
}

nlohmann::json coverageJson(const ProcessTimeline& t) {
  if (t.windows.empty() && t.gpuTimingMode != slog::GpuTiming::Off) return nullptr;
  size_t timedCalls = 0;
  for (const auto& c : t.calls) timedCalls += c.gpuTimed;
  nlohmann::json j = {{"mode", modeName(t.gpuTimingMode)},
                      {"sampled", t.sampled},
                      {"windows", t.windows.size()},
                      {"timedMicros", double(t.timedNs) / 1e3},
                      {"runMicros", double(t.runNs()) / 1e3},
                      {"timedShare", t.runNs() ? double(t.timedNs) / double(t.runNs()) : 0.0},
                      {"timedCalls", timedCalls},
                      {"calls", t.calls.size()}};
  if (std::string s = coverageSummary(t); !s.empty()) j["summary"] = s;
  return j;
}

void writeCoverageText(std::ostream& os, const std::vector<ProcessTimeline>& timelines) {
  bool any = false;
  for (const auto& t : timelines) {
    std::string s = coverageSummary(t);
    if (s.empty()) continue;
    os << (timelines.size() > 1 ? processName(t) + ": " : "") << s << "\n";
    any = true;
  }
  if (any) os << "\n";
}

}  // namespace sl::runtime
