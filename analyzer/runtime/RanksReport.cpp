#include "runtime/RanksReport.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "runtime/RuntimeRules.h"

namespace sl::runtime {

std::string ncclTypeName(uint32_t t) {
  static const char* kNames[] = {"int8", "uint8", "int32", "uint32", "int64", "uint64", "float16",
                                 "float32", "float64", "bfloat16", "float8e4m3", "float8e5m2"};
  return t < sizeof kNames / sizeof *kNames ? kNames[t] : "type " + std::to_string(t);
}

namespace {

constexpr size_t kTextCollectives = 10;  // aligned collectives printed, by spread

std::string rankLabel(const RankView& v) {
  std::string s = v.rank >= 0 ? "rank " + std::to_string(v.rank) : "pid " + std::to_string(v.pid);
  return s + " (pid " + std::to_string(v.pid) + (v.host.empty() ? "" : ", " + v.host) + ")";
}

std::string where(const std::string& path, uint32_t line) {
  return path.empty() ? "an unknown line" : path + (line ? ":" + std::to_string(line) : "");
}

// One rank's NCCL calls summed by (line, collective, stream, bytes): what the text prints.
struct CallGroup {
  size_t calls = 0;
  uint64_t gpuNs = 0, exposedNs = 0;
};
using GroupKey = std::tuple<std::string, uint32_t, std::string, uint64_t, uint32_t, int>;

std::map<GroupKey, CallGroup> callGroups(const RankView& v) {
  std::map<GroupKey, CallGroup> groups;
  for (const auto& c : v.collectives) {
    auto& g = groups[{c.path, c.line, c.kind, c.bytes, c.datatype, c.commIndex}];
    g.calls++;
    g.gpuNs += c.gpuNs;
    g.exposedNs += c.exposedNs;
  }
  return groups;
}

}  // namespace

void writeRanksText(std::ostream& os, const std::vector<RankView>& views, const RankAlignment& align) {
  bool anyNccl = std::any_of(views.begin(), views.end(), [](const RankView& v) { return v.ncclCalls > 0; });
  if (views.size() < 2 && !anyNccl) return;
  std::set<std::string> hosts;
  for (const auto& v : views) hosts.insert(v.host);
  os << "\nRanks: " << views.size() << (views.size() == 1 ? " process" : " processes") << " on " << hosts.size()
     << (hosts.size() == 1 ? " host" : " hosts");
  if (!views.empty() && views[0].launcher != "unknown") os << ", launched by " << views[0].launcher;
  if (!views.empty() && views[0].worldSize > 0) os << ", world size " << views[0].worldSize;
  os << ":\n";
  for (size_t i = 0; i < views.size(); ++i) {
    const RankView& v = views[i];
    const RankWaits& w = align.ranks[i];
    os << "  " << rankLabel(v) << ": ";
    if (v.gpuTiming)
      os << "compute " << humanTime(double(v.computeNs)) << ", communication " << humanTime(double(v.commNs))
         << ", exposed communication " << humanTime(double(v.exposedNs)) << " (" << percentText(v.commNs ? double(v.exposedNs) / double(v.commNs) : 0.0, 0) << ")";
    else
      os << "no GPU timing";
    os << ", " << v.ncclCalls << " NCCL calls";
    if (w.waitedNs) os << ", waited " << humanTime(double(w.waitedNs)) << " in collectives for later ranks";
    if (w.lastCount) os << ", arrived last to " << w.lastCount << " (others waited " << humanTime(double(w.causedNs)) << ")";
    os << "\n";
    for (const auto& [k, g] : callGroups(v)) {
      const auto& [path, line, kind, bytes, dtype, comm] = k;
      os << "    " << kind << " x" << g.calls << " from " << where(path, line) << ": " << bytes << " B "
         << ncclTypeName(dtype) << " each, communicator " << comm;
      if (g.gpuNs) os << ", GPU " << humanTime(double(g.gpuNs)) << ", exposed " << humanTime(double(g.exposedNs));
      os << "\n";
    }
    for (const auto& n : v.notes) os << "    note: " << n << "\n";
  }
  if (!align.collectives.empty()) {
    // The widest kTextCollectives spreads, earlier ones first among equal spreads (as a stable
    // sort by spread would list them), chosen in one pass: not an index of every collective.
    std::vector<AlignedCollective> bySpread;
    for (const AlignedCollective& ac : align.collectives) {
      if (bySpread.size() == kTextCollectives && ac.spreadNs <= bySpread.back().spreadNs) continue;
      auto at = std::upper_bound(bySpread.begin(), bySpread.end(), ac.spreadNs,
                                 [](uint64_t s, const AlignedCollective& x) { return s > x.spreadNs; });
      bySpread.insert(at, ac);
      if (bySpread.size() > kTextCollectives) bySpread.pop_back();
    }
    os << "  " << align.collectives.size() << " collectives aligned across ranks";
    if (align.straggler >= 0) os << "; straggler: " << rankLabel(views[align.straggler]);
    os << "; the widest arrival spreads:\n";
    for (size_t k = 0; k < bySpread.size() && bySpread[k].spreadNs; ++k) {
      const AlignedCollective& ac = bySpread[k];
      const RankView& s = views[ac.straggler];
      std::optional<RankCollective> late;  // read by value: the calls may be in a temporary file
      for (const AlignedMember& m : align.membersOf(ac))
        if (m.view == ac.straggler) late = views[m.view].collectives[m.index];
      os << "    " << ac.first.kind << " #" << ac.first.seq << " on communicator " << ac.first.commIndex << " ("
         << ac.memberCount << " ranks, " << ac.first.bytes << " B): spread " << humanTime(double(ac.spreadNs))
         << ", last " << (s.rank >= 0 ? "rank " + std::to_string(s.rank) : "pid " + std::to_string(s.pid));
      if (late && !late->delayPath.empty())
        os << " after " << where(late->delayPath, late->delayLine) << " and " << humanTime(double(late->delayGapNs))
           << " on the host";
      os << "\n";
    }
  }
  for (const auto& n : align.notes) os << "  note: " << n << "\n";
}

nlohmann::json ranksJson(const std::vector<RankView>& views, const RankAlignment& align, bool callLists) {
  std::vector<std::string> capNotes;
  nlohmann::json ranks = nlohmann::json::array();
  for (size_t i = 0; i < views.size(); ++i) {
    const RankView& v = views[i];
    nlohmann::json calls = nlohmann::json::array(), groups = nlohmann::json::array();
    if (callLists && v.collectives.size() > kJsonListCap)
      capNotes.push_back("ncclCallList of " + (v.rank >= 0 ? "rank " + std::to_string(v.rank) : "pid " + std::to_string(v.pid)) +
                         ": the first " + std::to_string(kJsonListCap) + " of " + std::to_string(v.collectives.size()) +
                         " NCCL calls (every call is in ncclCallsByLine)");
    if (callLists)
      for (const auto& c : v.collectives) {
        if (calls.size() == kJsonListCap) break;
        calls.push_back({{"collective", c.kind}, {"count", c.count}, {"bytes", c.bytes},
                         {"dtype", ncclTypeName(c.datatype)}, {"peer", c.peer}, {"nranks", c.nranks},
                         {"communicator", c.commIndex}, {"seq", c.seq}, {"path", c.path}, {"line", c.line},
                         {"gpuMicros", double(c.gpuNs) / 1e3}, {"exposedMicros", double(c.exposedNs) / 1e3}});
      }
    for (const auto& [k, g] : callGroups(v)) {
      const auto& [path, line, kind, bytes, dtype, comm] = k;
      groups.push_back({{"collective", kind}, {"calls", g.calls}, {"bytes", bytes}, {"dtype", ncclTypeName(dtype)},
                        {"communicator", comm}, {"path", path}, {"line", line},
                        {"gpuMicros", double(g.gpuNs) / 1e3}, {"exposedMicros", double(g.exposedNs) / 1e3}});
    }
    ranks.push_back({{"rank", v.rank}, {"localRank", v.localRank}, {"worldSize", v.worldSize},
                     {"pid", v.pid}, {"host", v.host}, {"launcher", v.launcher}, {"gpuTiming", v.gpuTiming},
                     {"computeMicros", double(v.computeNs) / 1e3}, {"commMicros", double(v.commNs) / 1e3},
                     {"exposedCommMicros", double(v.exposedNs) / 1e3}, {"ncclCalls", v.ncclCalls},
                     {"waitedMicros", double(align.ranks[i].waitedNs) / 1e3},
                     {"lastArrivals", align.ranks[i].lastCount},
                     {"causedWaitMicros", double(align.ranks[i].causedNs) / 1e3},
                     {"notes", v.notes}, {"ncclCallsByLine", std::move(groups)}});
    if (callLists) ranks.back()["ncclCallList"] = std::move(calls);
  }
  nlohmann::json aligned = nlohmann::json::array();
  if (align.collectives.size() > kJsonListCap)
    capNotes.push_back("alignedCollectives: the first " + std::to_string(kJsonListCap) + " of " +
                       std::to_string(align.collectives.size()) + " (the waits, straggler and SL906 count them all)");
  for (const auto& ac : align.collectives) {
    if (aligned.size() == kJsonListCap) break;
    nlohmann::json waits = nlohmann::json::array();  // [rank (pid when unknown), micros]
    for (const AlignedMember& m : align.membersOf(ac)) {
      const RankView& v = views[m.view];
      waits.push_back({v.rank >= 0 ? int64_t(v.rank) : int64_t(v.pid), double(m.waitNs) / 1e3});
    }
    const RankView& s = views[ac.straggler];
    aligned.push_back({{"collective", ac.first.kind}, {"communicator", ac.first.commIndex}, {"seq", ac.first.seq},
                       {"count", ac.first.count}, {"nranks", ac.first.nranks},
                       {"spreadMicros", double(ac.spreadNs) / 1e3}, {"lastRank", s.rank},
                       {"waitMicros", std::move(waits)}});
  }
  nlohmann::json out = nlohmann::json::object();
  out["ranks"] = std::move(ranks);
  out["alignedCollectives"] = std::move(aligned);
  out["unaligned"] = align.unaligned;
  out["realtimeClock"] = align.realtimeClock;
  out["notes"] = align.notes;
  for (const auto& n : capNotes) out["notes"].push_back(n);
  if (align.straggler >= 0) out["straggler"] = views[align.straggler].rank;
  return out;
}

}  // namespace sl::runtime
