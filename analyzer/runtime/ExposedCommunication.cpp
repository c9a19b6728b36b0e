// SL906 exposed-communication: a rank's GPU communicated with no compute running beside it for
// most of its communication time — the step waited for NCCL — and, across ranks, the straggler
// whose late arrival made the others wait in their collectives (their NCCL kernels spin until
// the last rank joins: exposed time that no overlap on the waiting rank can remove).
// Doc: rules/SL906-exposed-communication/rule.md.
#include <cstdio>
#include <map>
#include <tuple>

#include "runtime/RuntimeRules.h"

namespace sl::runtime {

namespace {

struct LineKey {
  std::string path;
  uint32_t line;
  bool operator<(const LineKey& o) const { return std::tie(path, line) < std::tie(o.path, o.line); }
};

// The line with the largest weight; {"", 0} when none is known.
LineKey heaviest(const std::map<LineKey, uint64_t>& byLine) {
  LineKey best{"", 0};
  uint64_t most = 0;
  for (const auto& [k, w] : byLine)
    if (!k.path.empty() && w >= most) { best = k; most = w; }
  return best;
}

void placeAtLine(Finding& f, const LineKey& k, const RankView& v) {
  f.path = k.path.empty() ? (v.logPath.empty() ? "<unknown>" : v.logPath) : k.path;
  f.loc = Loc{k.line, k.line ? 1u : 0u};
}

std::string rankName(const RankView& v) {
  return v.rank >= 0 ? "rank " + std::to_string(v.rank) : "pid " + std::to_string(v.pid);
}

}  // namespace

std::vector<Finding> exposedCommunication(const std::vector<RankView>& views, const RankAlignment& align,
                                          const RuntimeRuleOptions& o) {
  std::vector<Finding> out;
  for (size_t i = 0; i < views.size(); ++i) {
    const RankView& v = views[i];
    double share = v.commNs ? double(v.exposedNs) / double(v.commNs) : 0;
    if (v.exposedNs / 1e3 < o.minExposedMicros || share < o.minExposedShare) continue;
    std::map<LineKey, uint64_t> byLine;
    for (const auto& c : v.collectives) byLine[{c.path, c.line}] += c.exposedNs;
    Finding f;
    f.ruleId = "SL906";
    placeAtLine(f, heaviest(byLine), v);
    std::string pct = percentText(share, 0);
    const RankWaits& w = align.ranks[i];
    f.message = rankName(v) + " communicated on the GPU for " + humanTime(double(v.commNs)) + ", " + pct +
                " of it (" + humanTime(double(v.exposedNs)) + ") with no compute kernel running beside it: "
                "the step waited for NCCL" +
                (w.waitedNs ? "; " + humanTime(double(w.waitedNs)) + " of its collectives' time was spent "
                              "waiting for later ranks to arrive" : std::string()) +
                "; issue the collectives as their inputs become ready (DDP buckets, async_op=True and a "
                "wait() before the result is used) so that compute runs while they do";
    f.properties = {{"rank", v.rank}, {"pid", v.pid}, {"host", v.host},
                    {"computeMicros", double(v.computeNs) / 1e3}, {"commMicros", double(v.commNs) / 1e3},
                    {"exposedMicros", double(v.exposedNs) / 1e3}, {"exposedShare", share},
                    {"waitedMicros", double(w.waitedNs) / 1e3}, {"costMicros", double(v.exposedNs) / 1e3}};
    out.push_back(std::move(f));
  }

  if (align.straggler >= 0) {
    const RankView& s = views[align.straggler];
    const RankWaits& w = align.ranks[align.straggler];
    size_t total = 0;
    std::map<LineKey, uint64_t> byLine;
    uint64_t gapNs = 0;
    for (const auto& ac : align.collectives) {
      if (ac.spreadNs) ++total;
      if (ac.straggler != size_t(align.straggler) || !ac.spreadNs) continue;
      for (const AlignedMember& m : align.membersOf(ac))
        if (m.view == size_t(align.straggler)) {
          const RankCollective c = views[m.view].collectives[m.index];
          byLine[{c.delayPath, c.delayLine}] += ac.spreadNs;
          gapNs += c.delayGapNs;
        }
    }
    double lastShare = total ? double(w.lastCount) / double(total) : 0;
    if (w.causedNs / 1e3 >= o.minStragglerMicros && lastShare >= o.minStragglerShare) {
      LineKey line = heaviest(byLine);
      Finding f;
      f.ruleId = "SL906";
      placeAtLine(f, line, s);
      f.message = rankName(s) + " arrived last to " + std::to_string(w.lastCount) + " of " + std::to_string(total) +
                  " collectives; the first rank waited " + humanTime(double(w.causedNs)) +
                  " in them in total" +
                  (line.path.empty() ? std::string()
                                     : "; before arriving it last ran this line and spent " +
                                           humanTime(double(gapNs)) + " on the host after it") +
                  ": every rank's step is as slow as this rank's; balance its work or move the host "
                  "work it does here off the step";
      f.properties = {{"rank", s.rank}, {"pid", s.pid}, {"host", s.host}, {"straggler", true},
                      {"lastArrivals", w.lastCount}, {"alignedCollectives", total},
                      {"causedWaitMicros", double(w.causedNs) / 1e3}, {"hostGapMicros", double(gapNs) / 1e3},
                      {"costMicros", double(w.causedNs) / 1e3}};
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace sl::runtime
