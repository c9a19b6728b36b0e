// SL902: a side stream whose work hardly ever ran while another stream of its device was busy.
// A side stream is every stream but the device's busiest one (or its legacy default stream when
// that has work): the stream the program's main work runs on. Streams with less busy time than
// RuntimeRuleOptions::minSideBusyMicros are noise (a one-off memset) and are skipped.
// NCCL's streams (Communication.h) are neither main nor judged here: overlap with copies or other
// communication does not hide communication, only compute does, and SL906 measures exactly that.
#include <map>
#include <tuple>

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

// Several side streams set off from one line (gloo's or a library's pool of streams, one per
// bucket) are one finding at that line, not one per stream: the sums, and every stream named.
void mergeSameLine(std::vector<Finding>& out) {
  std::vector<Finding> merged;
  std::map<std::tuple<uint64_t, std::string, uint32_t>, size_t> at;
  for (auto& f : out) {
    auto key = std::make_tuple(f.properties.value("pid", uint64_t(0)), f.path, f.loc.line);
    auto [it, fresh] = at.emplace(key, merged.size());
    if (fresh || !f.loc.line) {
      if (!fresh) it->second = merged.size();
      merged.push_back(std::move(f));
      continue;
    }
    Finding& m = merged[it->second];
    auto& p = m.properties;
    if (!p.contains("streams")) p["streams"] = nlohmann::json::array({p["stream"]});
    p["streams"].push_back(f.properties["stream"]);
    for (const char* k : {"busyMicros", "overlappedMicros", "costMicros"})
      p[k] = p[k].get<double>() + f.properties[k].get<double>();
    for (const char* k : {"kernels", "copies"}) p[k] = p[k].get<uint64_t>() + f.properties[k].get<uint64_t>();
    double busy = p["busyMicros"].get<double>();
    p["overlapShare"] = busy > 0 ? p["overlappedMicros"].get<double>() / busy : 0.0;
    char share[32];
    snprintf(share, sizeof share, "%.1f %%", p["overlapShare"].get<double>() * 100);
    // " in the timed windows (...)" under sampled timing, as the single-stream message says it.
    const std::string& first = m.message;
    size_t a = first.find("copies)"), b = first.find(" but overlapped");
    std::string windows = a != std::string::npos && b != std::string::npos && b > a + 7 ? first.substr(a + 7, b - a - 7) : "";
    m.message = std::to_string(p["streams"].size()) + " side streams set off from this line were busy for " +
                humanTime(busy * 1e3) + " in all (" + std::to_string(p["kernels"].get<uint64_t>()) + " kernels, " +
                std::to_string(p["copies"].get<uint64_t>()) + " copies)" + windows + " but overlapped the other streams for only " +
                share + " of that time: their work ran when nothing else did, so the side streams bought no "
                "concurrency; queue independent work on another stream at the same time (and make sure the "
                "host is not waiting in between)";
  }
  out.swap(merged);
}

}  // namespace

std::vector<Finding> sideStreamNoOverlap(const RunData& run, const RuntimeRuleOptions& o) {
  std::vector<Finding> out;
  for (size_t i = 0; i < run.timelines.size(); ++i) {
    const ProcessTimeline& t = run.timelines[i];
    const CommSummary* comm = i < run.comms.size() ? &run.comms[i] : nullptr;
    for (const StreamOverlap& so : run.overlaps[i].streams) {
      const StreamInfo* s = t.stream(so.device, so.stream);
      const StreamInfo* main = mainStream(t, comm, so.device);
      if (!s || s == main || so.busyNs / 1e3 < o.minSideBusyMicros) continue;
      if (comm && comm->isCommStream(so.device, so.stream)) continue;
      if (so.share() >= o.minOverlapShare) continue;
      Finding f;
      f.ruleId = "SL902";
      placeAt(f, t, mainSource(t, *s));
      char share[32];
      snprintf(share, sizeof share, "%.1f %%", so.share() * 100);
      // Sampled timing: busy time and overlap are those of the timed windows.
      Coverage timed = coverageOf(t);
      f.message = s->label() + " was busy for " + humanTime(double(so.busyNs)) + " (" +
                  std::to_string(s->kernels) + " kernels, " + std::to_string(s->copies) + " copies)" +
                  (timed.sampled() ? " " + timed.inWindows() : "") +
                  " but overlapped the other streams for only " + share +
                  " of that time: its work ran when nothing else did, so the side stream bought "
                  "no concurrency; queue independent work on another stream at the same time "
                  "(and make sure the host is not waiting in between)";
      f.properties = {{"stream", s->label()},
                      {"device", so.device},
                      {"busyMicros", double(so.busyNs) / 1e3},
                      {"overlappedMicros", double(so.overlappedNs) / 1e3},
                      {"overlapShare", so.share()},
                      {"kernels", s->kernels},
                      {"copies", s->copies},
                      {"pid", t.pid},
                      {"costMicros", double(so.busyNs - so.overlappedNs) / 1e3}};
      if (main) f.properties["mainStream"] = main->label();
      timed.describe(f.properties);
      out.push_back(std::move(f));
    }
  }
  mergeSameLine(out);
  return out;
}

}  // namespace sl::runtime
