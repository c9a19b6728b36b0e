#include "runtime/CollectiveRecords.h"

#include <algorithm>

namespace sl::runtime {

void CollectiveRecords::add(const slog::CollectiveRecord& r) {
  if (!recs_.empty() && recs_.back().corr >= r.corr) sealed_ = false;
  recs_.push_back(r);
}

void CollectiveRecords::seal() const {
  if (sealed_) return;
  recs_.sortStably([](const slog::CollectiveRecord& r) { return r.corr; });
  // Of records with one corr, the last added stays (stable sort: it is the last of its run).
  SpilledVector<slog::CollectiveRecord> kept;
  for (size_t i = 0; i < recs_.size(); ++i) {
    slog::CollectiveRecord r = recs_[i];
    if (i + 1 < recs_.size() && recs_[i + 1].corr == r.corr) continue;
    kept.push_back(r);
  }
  recs_ = std::move(kept);
  sealed_ = true;
  hint_ = 0;
}

std::optional<slog::CollectiveRecord> CollectiveRecords::find(uint64_t corr) const {
  seal();
  size_t n = recs_.size();
  if (!n) return std::nullopt;
  // Every record before lo has a smaller corr, the one at hi (if any) a corr >= the one sought:
  // found by doubling steps away from the hint; then a binary search between them.
  size_t at = std::min(hint_, n - 1), lo = 0, hi = n;
  if (recs_[at].corr < corr) {
    lo = at + 1;
    for (size_t step = 1; lo + step - 1 < n; step *= 2) {
      size_t p = lo + step - 1;
      if (recs_[p].corr >= corr) { hi = p; break; }
      lo = p + 1;
    }
  } else {
    hi = at;
    for (size_t step = 1; step <= hi; step *= 2) {
      size_t p = hi - step;
      if (recs_[p].corr < corr) { lo = p + 1; break; }
      hi = p;
    }
  }
  auto it = std::lower_bound(recs_.begin() + std::ptrdiff_t(lo), recs_.begin() + std::ptrdiff_t(hi), corr,
                             [](const slog::CollectiveRecord& r, uint64_t c) { return r.corr < c; });
  size_t i = size_t(it - recs_.begin());
  hint_ = i < n ? i : n - 1;
  if (i == n) return std::nullopt;
  slog::CollectiveRecord r = recs_[i];
  if (r.corr != corr) return std::nullopt;
  return r;
}

}  // namespace sl::runtime
