// How much the streams of one device really ran at the same time, from the GPU timing of a
// ProcessTimeline: per stream the busy time (union of its kernels, copies and sets), per pair of
// streams the time both were busy, and each stream's time overlapped by any other stream.
#pragma once
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "runtime/SpilledVector.h"
#include "runtime/Timeline.h"

namespace sl::runtime {

struct StreamPairOverlap {
  uint32_t device = 0, a = 0, b = 0;  // CUPTI stream ids, a < b
  uint64_t overlapNs = 0;             // |busy(a) ∩ busy(b)|
  double shareOfA = 0, shareOfB = 0;  // overlapNs / busy time of a (of b)
  // Why overlap may buy no speed-up: how much longer the kernels of a and b took while the other
  // stream was busy than the same kernels (by name) took alone; 0 when no kernel ran both ways.
  // Near 2 means the two streams only shared a GPU each of them could fill.
  double overlappedSlowdown = 0;
};

struct StreamOverlap {
  uint32_t device = 0, stream = 0;
  uint64_t busyNs = 0;
  uint64_t overlappedNs = 0;  // |busy(s) ∩ busy(any other stream of the device)|
  double share() const { return busyNs ? double(overlappedNs) / double(busyNs) : 0; }
};

struct OverlapSummary {
  std::vector<StreamOverlap> streams;   // only streams with GPU work
  // Pairs on the same device that both had work; on a device with more than 64 streams, only
  // the pairs that were busy together (the rest would grow with the square of the streams).
  std::vector<StreamPairOverlap> pairs;
};

// An interval [first, second) of GPU time.
struct Interval {
  uint64_t first = 0, second = 0;
};
// Sorted, merged busy intervals [start, end) of one stream: as many as its ops on a long log, so
// in a SpilledVector (a temporary file past 4 MiB), like the ops themselves.
using Intervals = SpilledVector<Interval>;
// Every stream's busy intervals, keyed by (device, stream id), in one pass over the ops.
std::map<std::pair<uint32_t, uint32_t>, Intervals> busyByStream(const ProcessTimeline& t);
Intervals unite(Intervals v);                              // sorts and merges
uint64_t length(const Intervals& v);
uint64_t intersectionLength(const Intervals& a, const Intervals& b);  // both merged
uint64_t coveredLength(uint64_t start, uint64_t end, const Intervals& busy);  // |[start, end) ∩ busy|, busy merged

OverlapSummary analyzeOverlap(const ProcessTimeline& t);

}  // namespace sl::runtime
