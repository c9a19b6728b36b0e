// SL902: a side stream whose work hardly ever ran while another stream of its device was busy.
// A side stream is every stream but the device's busiest one (or its legacy default stream when
// that has work): the stream the program's main work runs on. Streams with less busy time than
// RuntimeRuleOptions::minSideBusyMicros are noise (a one-off memset) and are skipped.
// NCCL's streams (Communication.h) are neither main nor judged here: overlap with copies or other
// communication does not hide communication, only compute does, and SL906 measures exactly that.
#include <map>
#include <string>
#include <vector>

#include "runtime/GpuCoverage.h"
#include "runtime/RuntimeRules.h"

namespace sl::runtime {

namespace {

// The main stream of a device: legacy default if it ran anything, else the busiest.
const StreamInfo* mainStream(const ProcessTimeline& t, const CommSummary* comm, uint32_t device) {
  const StreamInfo* best = nullptr;
  for (const auto& s : t.streams) {
    if (s.device != device || (comm && comm->isCommStream(s.device, s.id))) continue;
    if (s.legacyDefault) return &s;
    if (!best || s.busyNs > best->busyNs) best = &s;
  }
  return best;
}

// The line that queued most of a stream's GPU time.
int mainSource(const ProcessTimeline& t, const StreamInfo& s) {
  std::map<int, uint64_t> byLoc;
  for (const auto& op : t.ops)
    if (op.device == s.device && op.stream == s.id && op.call >= 0)
      byLoc[t.reportLoc(t.calls[op.call])] += op.endNs - op.startNs;
  int best = -1;
  uint64_t bestNs = 0;
  for (const auto& [loc, ns] : byLoc)
    if (loc >= 0 && ns > bestNs) { best = loc; bestNs = ns; }
  return best;
}

// Side streams of one process set off from the same line (gloo's or a library's pool of streams,
// one per bucket) are one finding at that line, not one per stream: the sums, every stream named.
struct LineGroup {
  int loc = -1;
  std::vector<std::string> streams;
  uint32_t device = 0;
  std::string main;
  uint64_t busyNs = 0, overlappedNs = 0, kernels = 0, copies = 0;
  double share() const { return busyNs ? double(overlappedNs) / double(busyNs) : 0.0; }
};

Finding findingOf(const ProcessTimeline& t, const LineGroup& g) {
  bool many = g.streams.size() > 1;
  // Sampled timing: busy time and overlap are those of the timed windows.
  Coverage timed = coverageOf(t);
  Finding f;
  f.ruleId = "SL902";
  placeAt(f, t, g.loc);
  f.message = (many ? std::to_string(g.streams.size()) + " side streams set off from this line were busy for " +
                          humanTime(double(g.busyNs)) + " in all"
                    : g.streams[0] + " was busy for " + humanTime(double(g.busyNs))) +
              " (" + std::to_string(g.kernels) + " kernels, " + std::to_string(g.copies) + " copies)" +
              (timed.sampled() ? " " + timed.inWindows() : "") + " but overlapped the other streams for only " +
              percentText(g.share()) + " of that time: " +
              (many ? "their work ran when nothing else did, so the side streams bought"
                    : "its work ran when nothing else did, so the side stream bought") +
              " no concurrency; queue independent work on another stream at the same time "
              "(and make sure the host is not waiting in between)";
  f.properties = {{"stream", g.streams[0]},
                  {"device", g.device},
                  {"busyMicros", double(g.busyNs) / 1e3},
                  {"overlappedMicros", double(g.overlappedNs) / 1e3},
                  {"overlapShare", g.share()},
                  {"kernels", g.kernels},
                  {"copies", g.copies},
                  {"pid", t.pid},
                  {"costMicros", double(g.busyNs - g.overlappedNs) / 1e3}};
  if (many) f.properties["streams"] = g.streams;
  if (!g.main.empty()) f.properties["mainStream"] = g.main;
  timed.describe(f.properties);
  return f;
}

}  // namespace

std::vector<Finding> sideStreamNoOverlap(const RunData& run, const RuntimeRuleOptions& o) {
  std::vector<Finding> out;
  for (size_t i = 0; i < run.timelines.size(); ++i) {
    const ProcessTimeline& t = run.timelines[i];
    const CommSummary* comm = i < run.comms.size() ? &run.comms[i] : nullptr;
    std::vector<LineGroup> groups;
    std::map<int, size_t> byLoc;
    for (const StreamOverlap& so : run.overlaps[i].streams) {
      const StreamInfo* s = t.stream(so.device, so.stream);
      const StreamInfo* main = mainStream(t, comm, so.device);
      if (!s || s == main || so.busyNs / 1e3 < o.minSideBusyMicros) continue;
      if (comm && comm->isCommStream(so.device, so.stream)) continue;
      if (so.share() >= o.minOverlapShare) continue;
      int loc = mainSource(t, *s);
      bool located = loc >= 0 && t.locations[loc].line > 0;  // one without a line stays alone
      auto [at, fresh] = byLoc.emplace(located ? loc : -2 - int(groups.size()), groups.size());
      if (fresh) groups.push_back({loc, {}, so.device, main ? main->label() : ""});
      LineGroup& g = groups[at->second];
      g.streams.push_back(s->label());
      g.busyNs += so.busyNs;
      g.overlappedNs += so.overlappedNs;
      g.kernels += s->kernels;
      g.copies += s->copies;
    }
    for (const auto& g : groups) out.push_back(findingOf(t, g));
  }
  return out;
}

}  // namespace sl::runtime
