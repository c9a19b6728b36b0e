#include "runtime/RankAlignment.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace sl::runtime {

RankView rankView(const ProcessTimeline& t, const CommSummary& comm) {
  RankView v;
  v.rank = t.rank;
  v.localRank = t.localRank;
  v.worldSize = t.worldSize;
  v.host = t.host;
  v.launcher = t.launcher;
  v.logPath = t.logPath;
  v.pid = t.pid;
  v.realtimeOffsetNs = t.realtimeOffsetNs;
  v.gpuTiming = t.gpuTiming;
  v.runNs = t.runNs();
  v.computeNs = comm.computeNs;
  v.commNs = comm.commNs;
  v.exposedNs = comm.exposedNs;
  v.ncclCalls = comm.ncclCalls;
  v.notes = comm.notes;

  // The last call made from a user line before each collective: where the rank was before it
  // arrived. Calls are by enter time; a user thread is one that issued a call from a source line.
  auto located = [&](const HostCall& h) { return h.loc >= 0 && t.locations[h.loc].line > 0; };
  size_t next = 0;
  int lastLoc = -1;
  uint64_t lastExit = 0;
  // Exactly: grown by doubling, the copy made while it grows was the report's peak on long logs.
  v.collectives.reserve(comm.collectives.size());
  for (const CollectiveCall& c : comm.collectives) {
    const HostCall& h = t.calls[c.call];
    for (; next < size_t(c.call); ++next) {
      const HostCall& p = t.calls[next];
      if (located(p) && slog::apiClass(p.api) != slog::ApiClass::Collective) {
        lastLoc = p.loc;
        lastExit = p.exitNs;
      }
    }
    RankCollective r;
    r.kind = c.kind;
    r.count = c.count;
    r.bytes = c.bytes;
    r.datatype = c.datatype;
    r.peer = c.peer;
    r.nranks = c.nranks;
    r.commIndex = c.commIndex;
    r.seq = c.seq;
    r.arriveNs = h.enterNs;
    r.gpuNs = c.gpuNs;
    r.exposedNs = c.exposedNs;
    if (c.loc >= 0) { r.path = t.locations[c.loc].path; r.line = t.locations[c.loc].line; }
    if (lastLoc >= 0) {
      r.delayPath = t.locations[lastLoc].path;
      r.delayLine = t.locations[lastLoc].line;
      r.delayGapNs = h.enterNs > lastExit ? h.enterNs - lastExit : 0;
    }
    v.collectives.push_back(r);
  }
  return v;
}

RankAlignment alignRanks(const std::vector<RankView>& views) {
  RankAlignment a;
  a.ranks.resize(views.size());
  std::set<std::string> hosts;
  for (const auto& v : views) hosts.insert(v.host);
  a.realtimeClock = hosts.size() > 1;
  if (a.realtimeClock)
    a.notes.push_back("the ranks ran on " + std::to_string(hosts.size()) + " hosts: arrivals are compared on "
                      "CLOCK_REALTIME, as close as the hosts' clocks agree (NTP: typically well under 1 ms)");
  auto arrival = [&](size_t v, const RankCollective& c) {
    return a.realtimeClock ? uint64_t(int64_t(c.arriveNs) + views[v].realtimeOffsetNs) : c.arriveNs;
  };

  // (communicator number, ranks, sequence, collective, count) -> members.
  using Key = std::tuple<int, int, uint64_t, std::string, uint64_t>;
  std::map<Key, std::vector<std::pair<size_t, size_t>>> byKey;
  size_t single = 0;
  for (size_t v = 0; v < views.size(); ++v)
    for (size_t i = 0; i < views[v].collectives.size(); ++i) {
      RankCollective c = views[v].collectives[i];
      if (c.nranks == 1) { ++single; continue; }
      byKey[{c.commIndex, c.nranks, c.seq, c.kind, c.count}].emplace_back(v, i);
    }
  for (auto& [key, members] : byKey) {
    if (members.size() < 2) { a.unaligned += members.size(); continue; }
    AlignedCollective ac;
    ac.members = std::move(members);
    uint64_t earliest = UINT64_MAX, latest = 0;
    size_t firstMember = 0;
    for (size_t m = 0; m < ac.members.size(); ++m) {
      auto [v, i] = ac.members[m];
      uint64_t t = arrival(v, views[v].collectives[i]);
      if (t < earliest) { earliest = t; firstMember = m; }
      if (t >= latest) { latest = t; ac.straggler = v; }
    }
    ac.first = views[ac.members[firstMember].first].collectives[ac.members[firstMember].second];
    ac.spreadNs = latest - earliest;
    for (auto [v, i] : ac.members) {
      uint64_t w = latest - arrival(v, views[v].collectives[i]);
      ac.waitNs.push_back(w);
      a.ranks[v].waitedNs += w;
    }
    if (ac.spreadNs) {
      a.ranks[ac.straggler].lastCount++;
      a.ranks[ac.straggler].causedNs += ac.spreadNs;
    }
    a.collectives.push_back(std::move(ac));
  }
  std::sort(a.collectives.begin(), a.collectives.end(), [](const AlignedCollective& x, const AlignedCollective& y) {
    return std::tie(x.first.commIndex, x.first.seq) < std::tie(y.first.commIndex, y.first.seq);
  });
  uint64_t most = 0;
  for (size_t v = 0; v < a.ranks.size(); ++v)
    if (a.ranks[v].causedNs > most) { most = a.ranks[v].causedNs; a.straggler = int(v); }

  if (views.size() > 1 && single && byKey.empty())
    a.notes.push_back("every NCCL communicator had one rank (world size 1 per process): no collective to "
                      "align across ranks");
  if (a.unaligned)
    a.notes.push_back(std::to_string(a.unaligned) + " NCCL calls on communicators of several ranks matched "
                      "no call of another rank's log (logs of the other ranks missing, or cut off)");
  size_t omitted = 0;
  for (const auto& v : views) omitted += v.omittedCollectives;
  if (omitted)
    a.notes.push_back(std::to_string(omitted) + " NCCL calls past the summaries' limit were not aligned");
  return a;
}

}  // namespace sl::runtime
