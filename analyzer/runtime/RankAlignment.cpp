#include "runtime/RankAlignment.h"

#include <algorithm>
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
  v.jobId = t.jobId;
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

std::vector<AlignedMember> RankAlignment::membersOf(const AlignedCollective& c) const {
  std::vector<AlignedMember> out;
  out.reserve(c.memberCount);
  for (uint64_t m = 0; m < c.memberCount; ++m) out.push_back(members[c.membersAt + m]);
  return out;
}

namespace {

// A rank's call by (communicator number, sequence number): one sort key. Communicators per rank
// are few (< 2^24) and sequence numbers below 2^40 (a trillion calls on one communicator).
struct CallRef {
  uint64_t key = 0;
  uint64_t index = 0;  // into RankView::collectives
};
uint64_t orderKey(const RankCollective& c) {
  return (uint64_t(uint32_t(c.commIndex)) << 40) | (c.seq & ((uint64_t(1) << 40) - 1));
}

}  // namespace

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

  // Per rank, its calls of communicators of 2+ ranks by (communicator number, sequence).
  std::vector<SpilledVector<CallRef>> refs(views.size());
  size_t single = 0;
  bool anyShared = false;
  for (size_t v = 0; v < views.size(); ++v) {
    for (size_t i = 0; i < views[v].collectives.size(); ++i) {
      RankCollective c = views[v].collectives[i];
      if (c.nranks == 1) { ++single; continue; }
      refs[v].push_back({orderKey(c), i});
      anyShared = true;
    }
    refs[v].sortStably([](const CallRef& r) { return r.key; });
  }
  // Merged across ranks: each (communicator, sequence) in turn, its calls split by what else
  // every member must agree on (ranks in the communicator, collective, count), as a map keyed
  // by all five ordered them.
  std::vector<size_t> next(views.size(), 0);
  using Head = std::pair<uint64_t, size_t>;  // (key, view), smallest on top
  std::vector<Head> heap;
  auto after = [](const Head& x, const Head& y) { return x > y; };
  for (size_t v = 0; v < views.size(); ++v)
    if (!refs[v].empty()) heap.emplace_back(refs[v][0].key, v);
  std::make_heap(heap.begin(), heap.end(), after);
  struct Entry {
    size_t view, index;
    RankCollective c;
  };
  std::vector<Entry> group;
  while (!heap.empty()) {
    uint64_t key = heap.front().first;
    group.clear();
    while (!heap.empty() && heap.front().first == key) {
      std::pop_heap(heap.begin(), heap.end(), after);
      size_t v = heap.back().second;
      heap.pop_back();
      for (; next[v] < refs[v].size() && refs[v][next[v]].key == key; ++next[v]) {
        size_t i = refs[v][next[v]].index;
        RankCollective c = views[v].collectives[i];
        group.push_back({v, i, c});
      }
      if (next[v] < refs[v].size()) {
        heap.emplace_back(refs[v][next[v]].key, v);
        std::push_heap(heap.begin(), heap.end(), after);
      }
    }
    std::stable_sort(group.begin(), group.end(), [](const Entry& x, const Entry& y) {
      return std::tie(x.c.nranks, x.c.kind.str(), x.c.count, x.view, x.index) <
             std::tie(y.c.nranks, y.c.kind.str(), y.c.count, y.view, y.index);
    });
    for (size_t b = 0, e = 0; b < group.size(); b = e) {
      for (e = b + 1; e < group.size() && group[e].c.nranks == group[b].c.nranks &&
                      group[e].c.kind == group[b].c.kind && group[e].c.count == group[b].c.count; ++e) {}
      if (e - b < 2) { a.unaligned += e - b; continue; }
      AlignedCollective ac;
      ac.membersAt = a.members.size();
      ac.memberCount = e - b;
      uint64_t earliest = UINT64_MAX, latest = 0;
      size_t firstMember = b;
      for (size_t m = b; m < e; ++m) {
        uint64_t t = arrival(group[m].view, group[m].c);
        if (t < earliest) { earliest = t; firstMember = m; }
        if (t >= latest) { latest = t; ac.straggler = group[m].view; }
      }
      ac.first = group[firstMember].c;
      ac.spreadNs = latest - earliest;
      for (size_t m = b; m < e; ++m) {
        uint64_t w = latest - arrival(group[m].view, group[m].c);
        a.members.push_back({group[m].view, group[m].index, w});
        a.ranks[group[m].view].waitedNs += w;
      }
      if (ac.spreadNs) {
        a.ranks[ac.straggler].lastCount++;
        a.ranks[ac.straggler].causedNs += ac.spreadNs;
      }
      a.collectives.push_back(ac);
    }
  }
  uint64_t most = 0;
  for (size_t v = 0; v < a.ranks.size(); ++v)
    if (a.ranks[v].causedNs > most) { most = a.ranks[v].causedNs; a.straggler = int(v); }

  if (views.size() > 1 && single && !anyShared)
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
