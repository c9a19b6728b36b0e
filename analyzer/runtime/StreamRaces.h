// SL904 stream-race: accesses to overlapping device memory from two streams that nothing orders
// (runtime/StreamRaces.cpp; docs: rules/SL904-unordered-cross-stream-access/rule.md). Needs logs
// recorded with `streamlint run --sanitize`; other logs give nothing.
#pragma once
#include <string>
#include <vector>

#include "core/Finding.h"
#include "runtime/LogReader.h"
#include "runtime/Timeline.h"

namespace sl::runtime {

struct RaceCheckSummary {
  size_t processes = 0;          // sanitize logs judged
  size_t accesses = 0;           // unit accesses checked
  size_t gaps = 0;               // windows with lost records: nothing judged there
  uint64_t gapNs = 0;
  size_t unrecordedLaunches = 0;  // launches outside --sanitize-sample windows (no footprint)
  size_t unknownBlocks = 0;       // blocks not judged: their first use may be such a launch
  size_t leftOverWords = 0;       // launch words taken for leftovers of earlier arguments (StreamRaces.cpp)
  std::vector<std::string> notJudged;  // "<log>: why"
};

// `logs[i]` is the log `timelines[i]` was built from.
std::vector<Finding> streamRaces(const std::vector<ProcessLog>& logs,
                                 const std::vector<ProcessTimeline>& timelines, RaceCheckSummary& summary);

}  // namespace sl::runtime
