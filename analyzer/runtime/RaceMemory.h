// SL904's memory side: which allocation unit a launch's parameter word, or a copy's address, points
// into at the time of the call. Units are the caching allocator's blocks where the log has its
// trace (Python: `streamlint run --sanitize` starts it), else the device allocations the program
// made itself (cudaMalloc, cuMemAlloc, stream-ordered ones) with their frees.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/LogReader.h"
#include "runtime/Timeline.h"

namespace sl::runtime {

struct MemUnit {
  uint64_t lo = 0, hi = 0;
  uint64_t allocNs = 0, freeNs = 0;  // host CLOCK_MONOTONIC; freeNs 0: never freed
  uint64_t stream = 0;               // the allocator's stream for the block (0 for allocations)
  int allocCall = -1;                // the program's allocation call (allocations), else -1
  bool block = false;                // a caching-allocator block
};

class RaceMemory {
 public:
  // `error` is set when the log cannot be judged (a Python process without the allocator's trace).
  RaceMemory(const ProcessLog& log, const ProcessTimeline& t);
  bool usable() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // The unit holding `addr` at host time `ns`, or -1. Calls come in time order: the units live
  // at `ns` are kept by a sweep over their allocations and frees (O(log n) per lookup).
  // `stream` (the accessing stream's handle) settles the slack window between a block and the
  // one the allocator handed its memory to next (see find).
  int find(uint64_t addr, uint64_t ns, uint64_t stream);
  static constexpr uint64_t kAnyStream = ~0ull;  // find without the stream's say
  const MemUnit& unit(int i) const { return units_[i]; }
  bool blocks() const { return blocks_; }
  uint64_t traceBeginNs() const { return traceBeginNs_; }
  int64_t clockShiftNs() const { return shiftNs_; }  // what calibration moved the block trace by

 private:
  void fromBlocks(const ProcessLog& log, const ProcessTimeline& t);
  void fromAllocations(const ProcessTimeline& t);
  void advance(uint64_t ns);
  void resetSweep();
  void calibrate(const ProcessLog& log, const ProcessTimeline& t);
  std::vector<MemUnit> units_;
  std::vector<int> byAlloc_, byFree_;  // unit ids by allocation and by free time (freed ones)
  size_t nextAlloc_ = 0, nextFree_ = 0;
  std::map<uint64_t, int> live_;       // lo -> the unit born last at lo, alive at the sweep's time
  std::map<uint64_t, int> replaced_;   // lo -> the unit the one born last at lo replaced
  std::vector<bool> touched_;          // per unit: found by an access already
  bool blocks_ = false;
  uint64_t traceBeginNs_ = 0;  // the allocator trace's oldest entry: earlier blocks are unknown
  int64_t shiftNs_ = 0;
  std::string error_;
};

}  // namespace sl::runtime
