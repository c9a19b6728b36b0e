// A log's NCCL records (slog::CollectiveRecord: communicator, rank, size, root/peer), looked up
// by the call's corr. One per NCCL call: held as a SpilledVector (in a temporary file past a set
// size) sorted by corr, not a hash map (~80 bytes a call in memory). Lookups come in call order,
// which is nearly corr order, so each search gallops from where the last one ended: a few reads
// of one cached page, not a binary search over the whole file.
#pragma once
#include <cstdint>
#include <optional>

#include "runtime/SpilledVector.h"
#include "streamlint/LogFormat.h"

namespace sl::runtime {

class CollectiveRecords {
 public:
  // In any order; a later record for a corr replaces an earlier one (as the map did).
  void add(const slog::CollectiveRecord& r);
  std::optional<slog::CollectiveRecord> find(uint64_t corr) const;
  size_t size() const { seal(); return recs_.size(); }  // distinct corrs
  bool empty() const { return recs_.empty(); }
  void clear() { *this = CollectiveRecords(); }

 private:
  void seal() const;  // sorts by corr and drops replaced records, once, before the first read
  mutable SpilledVector<slog::CollectiveRecord> recs_;
  mutable bool sealed_ = true;
  mutable size_t hint_ = 0;  // where the last lookup ended
};

}  // namespace sl::runtime
