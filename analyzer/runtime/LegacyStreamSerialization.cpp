// SL905: work on the legacy default stream serializing other streams.
// The legacy default stream (stream 0) waits for all work queued before it on every *blocking*
// stream (created without cudaStreamNonBlocking), and those streams wait for it. In the GPU
// timing that shows as an operation that was ready — queued by the host and its own stream's
// previous operation done — but started only when an operation of the other kind (legacy vs.
// blocking stream) ended. Each such wait is charged to the legacy-stream launch site involved.
#include <algorithm>
#include <map>
#include <optional>

#include "runtime/GpuCoverage.h"
#include "runtime/RuntimeRules.h"

namespace sl::runtime {

namespace {

constexpr uint64_t kSlackNs = 10000;  // GPU start latency and host/GPU clock error

struct Site {
  int loc = -1;
  size_t waits = 0;
  uint64_t waitNs = 0, legacyOps = 0;
};

// Ops of one class with their end times, sorted by end (stably: of equal ends, the later op
// last). One per op: in a temporary file past a set size (SpilledVector.h).
struct End {
  uint64_t endNs = 0;
  int64_t call = -1;  // the op's launching call (GpuOp::call)
};
struct Ends {
  SpilledVector<End> byEnd;
  size_t next = 0;  // the ops before it ended at or before the last query's `to`
  // The op of this class that ended in [from, to], if any (the latest one). Queries come in the
  // ops' start order, so `to` rarely decreases: a cursor, not a binary search over the file.
  std::optional<End> endedIn(uint64_t from, uint64_t to) {
    while (next < byEnd.size() && byEnd[next].endNs <= to) ++next;
    while (next > 0 && byEnd[next - 1].endNs > to) --next;
    if (!next) return std::nullopt;
    End e = byEnd[next - 1];
    if (e.endNs >= from) return e;
    return std::nullopt;
  }
};

}  // namespace

std::vector<Finding> legacyStreamSerialization(const RunData& run, const RuntimeRuleOptions& o) {
  std::vector<Finding> out;
  for (const auto& t : run.timelines) {
    std::map<uint32_t, bool> hasLegacy, hasBlocking;
    for (const auto& s : t.streams) {
      if (s.legacyDefault) hasLegacy[s.device] = true;
      else if (s.blocking == 1) hasBlocking[s.device] = true;
    }
    // Class of each op: 1 legacy, 2 blocking stream, 0 neither (not involved).
    auto cls = [&](const GpuOp& op) {
      const StreamInfo* s = t.stream(op.device, op.stream);
      if (!s || !hasLegacy[op.device] || !hasBlocking[op.device]) return 0;
      return s->legacyDefault ? 1 : s->blocking == 1 ? 2 : 0;
    };
    std::map<uint32_t, Ends> ends[3];
    for (const auto& op : t.ops)
      if (int c = cls(op)) ends[c][op.device].byEnd.push_back(End{op.endNs, op.call});
    for (auto& e : ends)
      for (auto& [d, v] : e) v.byEnd.sortStably([](const End& x) { return x.endNs; });

    // (device, stream) -> end of its last op, and the timing window that op's launch began in
    // (always 0 when timed throughout). With sampled timing a stream's first op in a later window
    // may have waited for untimed work queued before it: when it became ready is unknown, so it
    // is not judged. The first window opens at the first CUDA call: nothing ran before it.
    std::map<std::pair<uint32_t, uint32_t>, std::pair<uint64_t, int>> prevEnd;
    std::map<int, Site> sites;  // by legacy launch location
    for (const auto& op : t.ops) {
      int c = cls(op);
      int window = t.sampled ? windowBegunBy(t.windows, op.call >= 0 ? t.calls[op.call].enterNs : op.startNs) : 0;
      auto& [prev, prevWindow] = prevEnd.try_emplace({op.device, op.stream}, 0, 0).first->second;
      uint64_t ready = prev;
      bool known = prevWindow == window;
      prev = std::max(prev, op.endNs);
      prevWindow = window;
      if (!c || !known) continue;
      if (op.call >= 0) ready = std::max(ready, t.calls[op.call].exitNs);
      if (op.startNs <= ready + kSlackNs) continue;
      auto& other = ends[c == 1 ? 2 : 1][op.device];
      auto y = other.endedIn(op.startNs - kSlackNs, op.startNs + kSlackNs / 5);
      if (!y) continue;
      int64_t legacyCall = c == 1 ? op.call : y->call;
      int loc = legacyCall >= 0 ? t.reportLoc(t.calls[size_t(legacyCall)]) : -1;
      Site& s = sites[loc];
      s.loc = loc;
      s.waits++;
      s.waitNs += op.startNs - ready;
    }
    for (const auto& op : t.ops)
      if (cls(op) == 1 && op.call >= 0) sites[t.reportLoc(t.calls[op.call])].legacyOps++;

    Coverage timed = coverageOf(t);  // sampled timing: waits and ops of the timed windows
    for (const auto& [loc, s] : sites) {
      if (!s.waits || s.waitNs / 1e3 < o.minSerializedMicros) continue;
      Finding f;
      f.ruleId = "SL905";
      placeAt(f, t, loc);
      f.message = "work queued here ran on the legacy default stream, which waits for every "
                  "blocking stream and makes them wait for it: " +
                  (timed.sampled() ? timed.inWindows() + ", " : "") + std::to_string(s.waits) +
                  " GPU operations sat ready for " + humanTime(double(s.waitNs)) +
                  " in total until an operation on the other side finished; launch on the "
                  "stream the surrounding code uses, or create the streams with "
                  "cudaStreamNonBlocking";
      f.properties = {{"serializedOperations", s.waits},
                      {"serializedMicros", double(s.waitNs) / 1e3},
                      {"legacyStreamOperations", s.legacyOps},
                      {"pid", t.pid},
                      {"costMicros", double(s.waitNs) / 1e3}};
      timed.describe(f.properties);
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace sl::runtime
