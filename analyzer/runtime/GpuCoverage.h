// What the report's GPU figures cover when GPU timing was sampled (TimedWindows.h), in the words
// every output shares: a sentence per process for headers, a phrase for findings built on GPU ops,
// JSON for machines. For a process timed throughout each is empty (or null), so reports of such
// logs read exactly as before windows existed.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/Timeline.h"

namespace sl::runtime {

// "GPU timing sampled: 15 windows, 1.60 s of 31.20 s (5.1 %); host calls recorded throughout";
// "GPU timing off (SL_GPU_TIMING=off): host calls only"; "" when the GPU timing covered the whole
// run.
std::string coverageSummary(const ProcessTimeline& t);

// The timed part of the processes a finding draws on (only sampled ones count).
struct Coverage {
  size_t processes = 0;
  uint64_t timedNs = 0, runNs = 0;
  void add(const ProcessTimeline& t);
  bool sampled() const { return processes > 0; }
  // "in the timed windows (1.60 s of 31.20 s)"; "" unless sampled.
  std::string inWindows() const;
  // properties["gpuTiming"] = {"mode": "sampled", "timedMicros", "runMicros", "processes"}.
  void describe(nlohmann::json& properties) const;
};
Coverage coverageOf(const ProcessTimeline& t);

// The run's "gpuTimingCoverage" (JSON "run", SARIF run.properties): mode, windows, timed and run
// time, timed calls; null for a log without windows (unless it says timing was off).
nlohmann::json coverageJson(const ProcessTimeline& t);

// The text report's header: one line per process whose GPU timing was sampled or off (named by
// pid when there are several), then an empty line; nothing when every process was timed throughout.
void writeCoverageText(std::ostream& os, const std::vector<ProcessTimeline>& timelines);

}  // namespace sl::runtime
