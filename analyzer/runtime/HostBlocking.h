// SL901 measured-host-blocking: every call site where a host thread sat in a CUDA call that
// blocks (syncs, blocking copies, allocations/frees, pageable "async" copies), aggregated over
// all processes' logs and ranked by total blocked time. Doc: rules/SL901-measured-host-blocking.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/Finding.h"
#include "runtime/LogReader.h"

namespace sl::runtime {

struct HostBlockingOptions {
  double minBlockingMicros = 100;  // a site is reported when its total blocked time reaches this
};

// The API records this analysis reads (for ReadOptions::keep).
bool isHostBlockingCandidate(const slog::ApiRecord& r);

// Findings sorted by total blocked time, largest first.
std::vector<Finding> measuredHostBlocking(const std::vector<ProcessLog>& logs,
                                          const HostBlockingOptions& options,
                                          const std::vector<std::string>& symbolDirs = {});

}  // namespace sl::runtime
