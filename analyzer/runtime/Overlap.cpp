#include "runtime/Overlap.h"

#include <algorithm>
#include <map>
#include <string>

namespace sl::runtime {

// In place: a second vector of a long log's intervals was the report's peak.
// Sorted by start only: intervals of one start merge to the same union in any order.
Intervals unite(Intervals v) {
  v.sortStably([](const Interval& iv) { return iv.first; });
  size_t n = 0;  // v[0, n) is the merged prefix
  for (size_t i = 0; i < v.size(); ++i) {
    const Interval iv = v[i];
    if (iv.second <= iv.first) continue;
    if (n && iv.first <= v[n - 1].second) v.update(n - 1, [&](Interval& last) { last.second = std::max(last.second, iv.second); });
    else v.set(n++, iv);
  }
  v.resize(n);
  return v;
}

uint64_t length(const Intervals& v) {
  uint64_t n = 0;
  for (const auto& [a, b] : v) n += b - a;
  return n;
}

uint64_t intersectionLength(const Intervals& a, const Intervals& b) {
  uint64_t n = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    uint64_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) n += hi - lo;
    (a[i].second < b[j].second ? i : j)++;
  }
  return n;
}

std::map<std::pair<uint32_t, uint32_t>, Intervals> busyByStream(const ProcessTimeline& t) {
  std::map<std::pair<uint32_t, uint32_t>, Intervals> out;
  std::map<std::pair<uint32_t, uint32_t>, size_t> count;  // reserved exactly: no vector doubled
  for (const auto& op : t.ops) count[{op.device, op.stream}]++;
  for (const auto& [key, n] : count) out[key].reserve(n);
  for (const auto& op : t.ops) out[{op.device, op.stream}].push_back(Interval{op.startNs, op.endNs});
  for (auto& [key, v] : out) v = unite(std::move(v));
  return out;
}

// |[start, end) ∩ busy| by binary search: busy is merged and sorted.
uint64_t coveredLength(uint64_t start, uint64_t end, const Intervals& busy) {
  auto it = std::upper_bound(busy.begin(), busy.end(), start,
                             [](uint64_t s, const Interval& iv) { return s < iv.first; });
  if (it != busy.begin()) --it;
  uint64_t n = 0;
  for (; it != busy.end() && (*it).first < end; ++it) {
    const Interval iv = *it;
    uint64_t lo = std::max(iv.first, start), hi = std::min(iv.second, end);
    if (hi > lo) n += hi - lo;
  }
  return n;
}

namespace {

// Streams on one device above which pairs that never overlapped are left out of the summary
// (their number grows with the square of the streams), and concurrency above which a moment's
// pairs are not counted (CUDA runs at most 128 kernels at once; such moments are pathological).
constexpr size_t kAllPairsUpTo = 64;
constexpr size_t kPairConcurrency = 64;

bool mostlyInside(uint64_t start, uint64_t end, const Intervals& busy) {
  return end > start && 2 * coveredLength(start, end, busy) > end - start;
}

// Mean duration of same-name kernels of streams a and b while the other was busy, over their
// mean duration alone, weighted by how many ran overlapped.
double slowdownWhenOverlapped(const ProcessTimeline& t, const SpilledVector<uint32_t>& opsA,
                              const SpilledVector<uint32_t>& opsB, const Intervals& busyA, const Intervals& busyB) {
  struct Sums { double overlapped = 0, alone = 0; size_t n = 0, m = 0; };
  std::map<std::string, Sums> byName;
  for (const auto* list : {&opsA, &opsB})
    for (size_t k : *list) {
      const GpuOp& op = t.ops[k];
      if (op.kind != slog::ActivityKind::Kernel) continue;
      auto& s = byName[op.name];
      double d = double(op.endNs - op.startNs);
      if (mostlyInside(op.startNs, op.endNs, list == &opsA ? busyB : busyA)) { s.overlapped += d; s.n++; }
      else { s.alone += d; s.m++; }
    }
  double weighted = 0;
  size_t weight = 0;
  for (const auto& [name, s] : byName) {
    if (!s.n || !s.m || s.alone <= 0) continue;
    weighted += (s.overlapped / double(s.n)) / (s.alone / double(s.m)) * double(s.n);
    weight += s.n;
  }
  return weight ? weighted / double(weight) : 0;
}

// One device's streams (indices into t.streams): a sweep over their busy intervals. A stream's
// intervals are merged, so it is active at most once at a time; the time it is active alone is
// the time no other stream overlapped it. Pairs' both-busy time is summed per moment.
void sweepDevice(const std::vector<size_t>& idx, const std::vector<Intervals>& busy, std::vector<uint64_t>& alone,
                 std::map<std::pair<size_t, size_t>, uint64_t>& pairNs) {
  // The streams' interval boundaries merged by time through a heap (one entry per stream): ends
  // before starts at the same instant, so touching intervals do not overlap. At one instant the
  // order does not matter: time accrues only between instants, to the set active then.
  struct Edge { uint64_t at; uint32_t stream; bool start; };
  auto later = [](const Edge& x, const Edge& y) { return x.at != y.at ? x.at > y.at : (x.start && !y.start); };
  std::vector<Edge> heap;
  std::vector<size_t> next(busy.size(), 0);  // stream -> its interval whose boundary is in the heap
  for (size_t i : idx)
    if (!busy[i].empty()) heap.push_back({busy[i][0].first, uint32_t(i), true});
  std::make_heap(heap.begin(), heap.end(), later);
  std::vector<size_t> active;
  std::vector<size_t> where(busy.size());  // stream -> its position in `active` while active
  uint64_t prev = 0;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const Edge e = heap.back();
    heap.pop_back();
    const auto& iv = busy[e.stream][next[e.stream]];
    if (e.start) {
      heap.push_back({iv.second, e.stream, false});
      std::push_heap(heap.begin(), heap.end(), later);
    } else if (++next[e.stream] < busy[e.stream].size()) {
      heap.push_back({busy[e.stream][next[e.stream]].first, e.stream, true});
      std::push_heap(heap.begin(), heap.end(), later);
    }
    uint64_t dt = e.at - prev;
    if (dt && active.size() == 1) alone[active[0]] += dt;
    else if (dt && active.size() >= 2 && active.size() <= kPairConcurrency)
      for (size_t x = 0; x < active.size(); ++x)
        for (size_t y = x + 1; y < active.size(); ++y)
          pairNs[{std::min(active[x], active[y]), std::max(active[x], active[y])}] += dt;
    prev = e.at;
    if (e.start) {
      where[e.stream] = active.size();
      active.push_back(e.stream);
    } else {
      size_t at = where[e.stream];
      active[at] = active.back();
      where[active[at]] = at;
      active.pop_back();
    }
  }
}

}  // namespace

// Near-linear in the streams and ops (a sweep per device), so a log with thousands of streams
// reports in seconds; only pairs cost more, and only pairs that ran together are listed beyond
// kAllPairsUpTo streams on a device.
OverlapSummary analyzeOverlap(const ProcessTimeline& t) {
  OverlapSummary out;
  auto byStream = busyByStream(t);
  std::vector<Intervals> busy;
  std::map<std::pair<uint32_t, uint32_t>, size_t> index;
  std::map<uint32_t, std::vector<size_t>> byDevice;
  for (size_t i = 0; i < t.streams.size(); ++i) {
    const auto& s = t.streams[i];
    busy.push_back(std::move(byStream[{s.device, s.id}]));
    StreamOverlap so;
    so.device = s.device;
    so.stream = s.id;
    so.busyNs = length(busy.back());
    out.streams.push_back(so);
    index[{s.device, s.id}] = i;
    byDevice[s.device].push_back(i);
  }
  std::vector<SpilledVector<uint32_t>> opsOf(t.streams.size());  // 4 bytes an op, reserved exactly
  for (size_t i = 0; i < t.streams.size(); ++i)
    opsOf[i].reserve(t.streams[i].kernels + t.streams[i].copies + t.streams[i].sets);
  for (size_t k = 0; k < t.ops.size(); ++k)
    if (auto it = index.find({t.ops[k].device, t.ops[k].stream}); it != index.end()) opsOf[it->second].push_back(uint32_t(k));
  std::vector<uint64_t> alone(t.streams.size(), 0);
  std::map<std::pair<size_t, size_t>, uint64_t> pairNs;
  for (const auto& [device, idx] : byDevice) sweepDevice(idx, busy, alone, pairNs);
  for (size_t i = 0; i < t.streams.size(); ++i) out.streams[i].overlappedNs = out.streams[i].busyNs - alone[i];
  auto addPair = [&](size_t i, size_t j, uint64_t overlapNs) {
    StreamPairOverlap p;
    p.device = t.streams[i].device;
    p.a = t.streams[i].id;
    p.b = t.streams[j].id;
    p.overlapNs = overlapNs;
    p.shareOfA = out.streams[i].busyNs ? double(p.overlapNs) / double(out.streams[i].busyNs) : 0;
    p.shareOfB = out.streams[j].busyNs ? double(p.overlapNs) / double(out.streams[j].busyNs) : 0;
    if (p.overlapNs) p.overlappedSlowdown = slowdownWhenOverlapped(t, opsOf[i], opsOf[j], busy[i], busy[j]);
    out.pairs.push_back(p);
  };
  for (size_t i = 0; i < t.streams.size(); ++i) {
    const auto& idx = byDevice[t.streams[i].device];
    if (idx.size() <= kAllPairsUpTo) {
      for (size_t j : idx)
        if (j > i) {
          auto it = pairNs.find({i, j});
          addPair(i, j, it == pairNs.end() ? 0 : it->second);
        }
    } else {
      for (auto it = pairNs.lower_bound({i, 0}); it != pairNs.end() && it->first.first == i; ++it)
        addPair(i, it->first.second, it->second);
    }
  }
  return out;
}

}  // namespace sl::runtime
