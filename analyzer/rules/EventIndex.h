// Indices over one function's (or module's) events, so the rules' per-use questions — who last
// produced `v` before event i, which waits or syncs lie between two events, which events sit
// at a finding's location — cost what they find instead of a scan of the whole function.
// Without them a 40k-statement function took minutes: every use scanned every event (issue 17).
//
// The model is immutable while rules judge it, so the indices are built on first use and kept
// for as long as an EventIndexScope lives on this thread (the driver holds one per module it
// judges). Outside a scope there is no index and the queries scan, with the same answers.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/StreamModel.h"

namespace sl::rules {

struct EventIndex {
  // Per value: the events that produce it (write it, or allocate/copy into it), ascending.
  std::unordered_map<std::string_view, std::vector<uint32_t>> producers;
  // Per value: its Free events, ascending.
  std::unordered_map<std::string_view, std::vector<uint32_t>> frees;
  // Values some RecordStream event names.
  std::unordered_set<std::string_view> recorded;
  // HostSync and Wait events (the only ones that can order two streams), ascending.
  std::vector<uint32_t> orderings;
  // Wait events, ascending.
  std::vector<uint32_t> waits;
};

// The index of `f`, built on first use; nullptr when no EventIndexScope is active.
const EventIndex* eventIndex(const model::Function& f);

// The module's events at `loc`, in module order (functions, then events); nullptr when no
// EventIndexScope is active.
const std::vector<const model::Event*>* eventsAt(const model::Module& m, Loc loc);

// Indices live while this lives (on this thread). Nested scopes each keep their own.
class EventIndexScope {
 public:
  EventIndexScope();
  ~EventIndexScope();
  EventIndexScope(const EventIndexScope&) = delete;
  EventIndexScope& operator=(const EventIndexScope&) = delete;
  struct Cache;  // the indices (EventIndex.cpp)

 private:
  Cache* cache_;
  Cache* saved_;
};

// Calls `fn(k)` for the indices k in `sorted` with from < k < to, ascending, until it returns true.
template <class Fn>
bool anyBetween(const std::vector<uint32_t>& sorted, size_t from, size_t to, const Fn& fn) {
  for (auto it = std::upper_bound(sorted.begin(), sorted.end(), from); it != sorted.end() && *it < to; ++it)
    if (fn(size_t(*it))) return true;
  return false;
}

}  // namespace sl::rules
