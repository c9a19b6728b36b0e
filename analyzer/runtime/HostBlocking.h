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

struct CallSite;
struct ProcessTimeline;

// SL901's call sites, aggregated one call at a time as a log is read (the streaming report holds
// no call as read). Feed every kept call of every log, logs in order, each log's calls in the
// log's order; then findings() prices each site's span against its process's timeline.
class HostBlockingSites {
 public:
  HostBlockingSites();
  ~HostBlockingSites();
  HostBlockingSites(const HostBlockingSites&) = delete;
  HostBlockingSites& operator=(const HostBlockingSites&) = delete;
  // Non-blocking calls are skipped. `where`: resolveCallSite of the call.
  void add(const ProcessLog& log, const ApiCall& c, const CallSite& where);
  // Sorted as measuredHostBlocking's. `timelines`: those of the logs fed (by pid).
  std::vector<Finding> findings(const std::vector<ProcessTimeline>& timelines, const HostBlockingOptions& options) const;

  struct Impl;

 private:
  friend std::vector<Finding> measuredHostBlocking(const std::vector<ProcessLog>&, const HostBlockingOptions&, Symbolizer&);
  Impl* impl_;
};

// Findings sorted by total blocked time, largest first.
// Native sites go through `sym`; a symbolizer that already resolved them (buildTimeline's) does
// not run addr2line again.
std::vector<Finding> measuredHostBlocking(const std::vector<ProcessLog>& logs,
                                          const HostBlockingOptions& options, Symbolizer& sym);

}  // namespace sl::runtime
