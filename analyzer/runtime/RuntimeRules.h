// The measured stream rules: what the GPU timing of a run shows about how its streams were used.
//   SL902 side-stream-no-overlap   a side stream overlapped the other streams < 5 % of its busy time
//   SL903 work-off-region-stream   work issued inside a side-stream region ran on another stream
//   SL905 legacy-stream-serialization  work on the legacy default stream serialized other streams
//   SL906 exposed-communication  communication no compute overlapped; the straggler rank behind it
// Docs: rules/SL90x-*/rule.md. Each finding carries properties.costMicros, the measured time at
// stake, by which `streamlint report` ranks everything it prints.
#pragma once
#include <string>
#include <vector>

#include "core/Finding.h"
#include "runtime/Communication.h"
#include "runtime/Overlap.h"
#include "runtime/RankAlignment.h"
#include "runtime/Timeline.h"

namespace sl::runtime {

struct RunData {
  std::vector<ProcessTimeline> timelines;
  std::vector<OverlapSummary> overlaps;  // one per timeline
  std::vector<CommSummary> comms;        // one per timeline (Communication.h)
};

struct RuntimeRuleOptions {
  double minOverlapShare = 0.05;   // SL902: below this share of its busy time
  double minSideBusyMicros = 100;  // SL902: ignore streams busy for less than this in total
  double minSerializedMicros = 100;  // SL905: report when the waits add up to this
  double minExposedShare = 0.5;      // SL906: exposed share of a rank's communication time
  double minExposedMicros = 100;     // SL906: and at least this much exposed time
  double minStragglerMicros = 1000;  // SL906: waits a straggler caused, in total
  double minStragglerShare = 0.5;    // SL906: share of the collectives it arrived last to
};

std::vector<Finding> sideStreamNoOverlap(const RunData& run, const RuntimeRuleOptions& o);  // SL902
std::vector<Finding> workOffRegionStream(const RunData& run);                              // SL903
std::vector<Finding> legacyStreamSerialization(const RunData& run, const RuntimeRuleOptions& o);  // SL905
std::vector<Finding> exposedCommunication(const std::vector<RankView>& views, const RankAlignment& align,
                                          const RuntimeRuleOptions& o);                 // SL906

// "1.23 ms", "4.84 s", "12.0 us".
std::string humanTime(double ns);
// A share (0..1) as "12.3 %" (`decimals` after the point).
std::string percentText(double share, int decimals = 1);
// "64.00 MiB", "1.5 KiB", "12 bytes".
std::string humanBytes(uint64_t n);
// Sets path/line (and properties.function) of a measured finding from a timeline location.
void placeAt(Finding& f, const ProcessTimeline& t, int loc);

}  // namespace sl::runtime
