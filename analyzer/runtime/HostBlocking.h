// SL901 measured-host-blocking: every call site where a host thread sat in a CUDA call that
// blocks (syncs, blocking copies, allocations/frees, pageable "async" copies), aggregated over
// all processes' logs and ranked by total blocked time. Doc: rules/SL901-measured-host-blocking.
#pragma once
#include <cstdint>
#include <vector>

#include "core/Finding.h"
#include "runtime/LogReader.h"
#include "runtime/Symbolizer.h"

namespace sl::runtime {

struct HostBlockingOptions {
  double minBlockingMicros = 100;  // a site is reported when its total blocked time reaches this
};

// The API records this analysis reads (for ReadOptions::keep).
bool isHostBlockingCandidate(const slog::ApiRecord& r);

// Findings sorted by total blocked time, largest first.
// Native sites go through `sym`; a symbolizer that already resolved them (buildTimeline's) does
// not run addr2line again.
std::vector<Finding> measuredHostBlocking(const std::vector<ProcessLog>& logs,
                                          const HostBlockingOptions& options, Symbolizer& sym);

}  // namespace sl::runtime
