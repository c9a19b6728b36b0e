// What the report keeps per record on long logs without holding it in memory (issue 14): the
// NCCL records by corr (CollectiveRecords.h), the join of older logs' GPU records to their calls
// by external id (Timeline.cpp) and interned strings (InternedString.h). Each against the
// in-memory structure it replaced, on inputs long enough to move to temporary files.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <random>

#include "LogBuilder.h"
#include "runtime/CollectiveRecords.h"
#include "runtime/InternedString.h"
#include "runtime/RankAlignment.h"

namespace sl::runtime::test {
namespace {

slog::CollectiveRecord record(uint64_t corr, int nranks) {
  slog::CollectiveRecord r{};
  r.h = {slog::RecType::Collective, sizeof r};
  r.corr = corr;
  r.nranks = nranks;
  return r;
}

// 300,000 records (12 MB: past the 4 MiB threshold) added out of order, some corrs twice: every
// lookup (in near order, at random, and of corrs never added) answers as a map would.
TEST(CollectiveRecords, LookupsAnswerAsAMapAcrossTheTemporaryFile) {
  std::mt19937_64 rng(11);
  std::map<uint64_t, int> want;
  CollectiveRecords recs;
  for (uint64_t i = 0; i < 300000; ++i) {
    // Threads' chunks interleave: corrs arrive nearly, not exactly, in order.
    uint64_t corr = 3 * i + rng() % 64;
    int nranks = int(rng() % 1000);
    recs.add(record(corr, nranks));
    want[corr] = nranks;  // a later record for a corr replaces the earlier one
  }
  ASSERT_EQ(recs.size(), want.size());
  size_t wrong = 0;
  for (uint64_t corr = 0; corr < 3 * 300000 + 64; ++corr) {  // in order, misses included
    auto r = recs.find(corr);
    auto w = want.find(corr);
    wrong += bool(r) != (w != want.end()) || (r && r->nranks != w->second);
  }
  for (int k = 0; k < 20000; ++k) {  // at random
    uint64_t corr = rng() % (3 * 300000 + 64);
    auto r = recs.find(corr);
    auto w = want.find(corr);
    wrong += bool(r) != (w != want.end()) || (r && r->nranks != w->second);
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_FALSE(recs.find(UINT64_MAX));
  CollectiveRecords none;
  EXPECT_FALSE(none.find(1));
  EXPECT_EQ(none.size(), 0u);
}

// Logs of older recorders (kCorrelated) name each GPU record's call by its corr (externalId).
// 200,000 launches made in an order other than their corrs', each kernel naming its launch; one
// corr recorded twice goes to the later call, as the map of calls by corr gave it.
TEST(TimelineJoin, OlderLogsJoinGpuRecordsToTheCallTheyName) {
  LogBuilder b;
  constexpr uint64_t n = 200000;
  for (uint64_t i = 0; i < n; ++i) {
    size_t c = b.launch(((i * 7919) % n) * 1000 + 1000);  // enter times in another order than corrs
    b.log.calls[c].rec.a0 = i;
  }
  // The last call reuses the first call's corr and enters after every other call.
  b.log.calls.back().rec.corr = b.log.calls.front().rec.corr;
  b.log.calls.back().rec.tEnter = n * 1000 + 5000;
  b.log.calls.back().rec.tExit = n * 1000 + 5100;
  for (uint64_t i = 0; i + 1 < n; ++i) {
    // The kernel of call i starts at 10 s + i us; its CUPTI correlation ids say nothing (0).
    b.kernel(10000 * kMs + i * 1000, 10000 * kMs + i * 1000 + 500);
    b.log.activities.back().externalId = b.log.calls[i].rec.corr;
    b.log.activities.back().correlationId = 0;
  }
  Symbolizer sym;
  ProcessTimeline t = buildTimeline(b.log, sym);
  ASSERT_TRUE(t.calls.spilled());
  ASSERT_EQ(t.ops.size(), n - 1);
  size_t wrong = 0;
  for (size_t k = 0; k < t.ops.size(); ++k) {
    GpuOp op = t.ops[k];
    uint64_t i = (op.startNs - 10000 * kMs) / 1000;  // the call whose corr it names
    uint64_t want = i == 0 ? n - 1 : i;               // call 0's corr was recorded again last
    wrong += op.call < 0 || t.calls[size_t(op.call)].a0 != want;
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(InternedString, EqualStringsShareOneCopyAndOrderByContent) {
  InternedString a(std::string("/home/u/train.py")), b("/home/u/train.py"), c("/home/u/model.py"), none;
  EXPECT_EQ(&a.str(), &b.str());
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == c);
  EXPECT_TRUE(c < a);
  EXPECT_FALSE(a < b);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none, InternedString(""));
  static_assert(std::is_trivially_copyable_v<InternedString>, "records holding one can be spilled");
}

}  // namespace
}  // namespace sl::runtime::test

namespace sl::runtime::test {
namespace {

// The cross-rank alignment merges each rank's calls sorted by (communicator, sequence) in
// temporary files; it must match what the map of every call by key (before) aligned: 3 ranks,
// 2 communicators whose calls interleave, 40,000 calls each (4.5 MB: the rank views spill), rank
// 2 missing every 7th call of communicator 1, ranks 1 and 2 every 11th (unaligned), arrivals
// jittered (ties included).
TEST(RankAlignmentStreamed, SameAsTheMapOfEveryCall) {
  std::mt19937_64 rng(5);
  std::vector<RankView> views(3);
  for (size_t v = 0; v < views.size(); ++v) {
    views[v].rank = int(v);
    views[v].host = "node1";
    uint64_t seq[2] = {0, 0};
    for (uint64_t k = 0; k < 40000; ++k) {
      RankCollective c;
      c.commIndex = int(k % 3 == 0);
      c.seq = seq[c.commIndex]++;
      c.kind = c.commIndex ? "AllGather" : "AllReduce";
      c.count = 1024;
      c.nranks = 3;
      c.arriveNs = k * 100000 + rng() % 4 * 1000;
      if (v == 2 && c.commIndex == 1 && c.seq % 7 == 0) continue;       // two ranks: aligned
      if (v >= 1 && c.commIndex == 1 && c.seq % 11 == 0) continue;      // rank 0 alone: unaligned
      views[v].collectives.push_back(c);
    }
  }
  ASSERT_TRUE(views[0].collectives.spilled());
  RankAlignment a = alignRanks(views);

  // Before: every call in a map by (communicator, ranks, sequence, collective, count).
  using Key = std::tuple<int, int, uint64_t, std::string, uint64_t>;
  std::map<Key, std::vector<std::pair<size_t, size_t>>> byKey;
  for (size_t v = 0; v < views.size(); ++v)
    for (size_t i = 0; i < views[v].collectives.size(); ++i) {
      RankCollective c = views[v].collectives[i];
      byKey[{c.commIndex, c.nranks, c.seq, c.kind, c.count}].emplace_back(v, i);
    }
  std::vector<std::pair<Key, std::vector<std::pair<size_t, size_t>>>> want;
  size_t unaligned = 0;
  for (auto& [k, m] : byKey) {
    if (m.size() < 2) unaligned += m.size();
    else want.emplace_back(k, m);
  }
  std::stable_sort(want.begin(), want.end(), [](const auto& x, const auto& y) {
    return std::tie(std::get<0>(x.first), std::get<2>(x.first)) < std::tie(std::get<0>(y.first), std::get<2>(y.first));
  });
  EXPECT_EQ(a.unaligned, unaligned);
  EXPECT_GT(unaligned, 0u);
  ASSERT_EQ(a.collectives.size(), want.size());
  std::vector<uint64_t> waited(views.size(), 0);
  size_t wrong = 0;
  for (size_t k = 0; k < want.size(); ++k) {
    AlignedCollective ac = a.collectives[k];
    const auto& [key, members] = want[k];
    std::vector<AlignedMember> got = a.membersOf(ac);
    uint64_t latest = 0, earliest = UINT64_MAX;
    size_t straggler = 0;
    for (auto [v, i] : members) {
      uint64_t t = RankCollective(views[v].collectives[i]).arriveNs;
      earliest = std::min(earliest, t);
      if (t >= latest) { latest = t; straggler = v; }
    }
    bool same = ac.first.commIndex == std::get<0>(key) && ac.first.seq == std::get<2>(key) &&
                ac.first.kind == std::get<3>(key) && got.size() == members.size() && ac.straggler == straggler &&
                ac.spreadNs == latest - earliest;
    for (size_t m = 0; same && m < got.size(); ++m) {
      uint64_t t = RankCollective(views[members[m].first].collectives[members[m].second]).arriveNs;
      same = got[m].view == members[m].first && got[m].index == members[m].second && got[m].waitNs == latest - t;
      waited[got[m].view] += got[m].waitNs;
    }
    wrong += !same;
  }
  EXPECT_EQ(wrong, 0u);
  for (size_t v = 0; v < views.size(); ++v) EXPECT_EQ(a.ranks[v].waitedNs, waited[v]) << "rank " << v;
}

}  // namespace
}  // namespace sl::runtime::test
