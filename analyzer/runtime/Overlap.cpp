#include "runtime/Overlap.h"

#include <algorithm>
#include <map>
#include <string>

namespace sl::runtime {

Intervals unite(Intervals v) {
  std::sort(v.begin(), v.end());
  Intervals out;
  for (const auto& iv : v) {
    if (iv.second <= iv.first) continue;
    if (!out.empty() && iv.first <= out.back().second) out.back().second = std::max(out.back().second, iv.second);
    else out.push_back(iv);
  }
  return out;
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
  for (const auto& op : t.ops) out[{op.device, op.stream}].emplace_back(op.startNs, op.endNs);
  for (auto& [key, v] : out) v = unite(std::move(v));
  return out;
}

namespace {

bool mostlyInside(uint64_t start, uint64_t end, const Intervals& busy) {
  return end > start && 2 * intersectionLength({{start, end}}, busy) > end - start;
}

// Mean duration of same-name kernels of streams a and b while the other was busy, over their
// mean duration alone, weighted by how many ran overlapped.
double slowdownWhenOverlapped(const ProcessTimeline& t, uint32_t device, uint32_t a, uint32_t b,
                              const Intervals& busyA, const Intervals& busyB) {
  struct Sums { double overlapped = 0, alone = 0; size_t n = 0, m = 0; };
  std::map<std::string, Sums> byName;
  for (const auto& op : t.ops) {
    if (op.kind != slog::ActivityKind::Kernel || op.device != device || (op.stream != a && op.stream != b)) continue;
    auto& s = byName[op.name];
    double d = double(op.endNs - op.startNs);
    if (mostlyInside(op.startNs, op.endNs, op.stream == a ? busyB : busyA)) { s.overlapped += d; s.n++; }
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

}  // namespace

OverlapSummary analyzeOverlap(const ProcessTimeline& t) {
  OverlapSummary out;
  auto byStream = busyByStream(t);
  std::vector<Intervals> busy;
  for (const auto& s : t.streams) {
    busy.push_back(std::move(byStream[{s.device, s.id}]));
    StreamOverlap so;
    so.device = s.device;
    so.stream = s.id;
    so.busyNs = length(busy.back());
    out.streams.push_back(so);
  }
  for (size_t i = 0; i < t.streams.size(); ++i) {
    Intervals others;
    for (size_t j = 0; j < t.streams.size(); ++j) {
      if (j == i || t.streams[j].device != t.streams[i].device) continue;
      others.insert(others.end(), busy[j].begin(), busy[j].end());
      if (j < i) continue;
      StreamPairOverlap p;
      p.device = t.streams[i].device;
      p.a = t.streams[i].id;
      p.b = t.streams[j].id;
      p.overlapNs = intersectionLength(busy[i], busy[j]);
      p.shareOfA = out.streams[i].busyNs ? double(p.overlapNs) / double(out.streams[i].busyNs) : 0;
      p.shareOfB = out.streams[j].busyNs ? double(p.overlapNs) / double(out.streams[j].busyNs) : 0;
      if (p.overlapNs)
        p.overlappedSlowdown = slowdownWhenOverlapped(t, p.device, p.a, p.b, busy[i], busy[j]);
      out.pairs.push_back(p);
    }
    out.streams[i].overlappedNs = intersectionLength(busy[i], unite(std::move(others)));
  }
  return out;
}

}  // namespace sl::runtime
