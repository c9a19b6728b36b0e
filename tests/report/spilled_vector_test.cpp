// SpilledVector (issue 14): past its threshold (4 MiB unless SL_SPILL_AFTER_MB says otherwise)
// the elements live in a temporary file; reads, writes, copies and the external sort must give
// what a std::vector gives.
#include "runtime/SpilledVector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using sl::runtime::SpilledVector;

namespace {
struct Rec {
  uint64_t key;
  uint32_t index;
};

// Sorts `want` as std::stable_sort does and counts the elements of the sorted `v` that differ.
size_t misplacedAfterStableSort(const SpilledVector<Rec>& v, std::vector<Rec>& want) {
  std::stable_sort(want.begin(), want.end(), [](const Rec& a, const Rec& b) { return a.key < b.key; });
  size_t wrong = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    Rec r = v[i];
    wrong += r.key != want[i].key || r.index != want[i].index;
  }
  return wrong;
}
}  // namespace

// 3 M records of 16 bytes (48 MB) spill whatever the threshold; keys repeat, so the sort's
// stability shows: equal keys must keep their order of insertion across the merged runs.
TEST(SpilledVector, LongVectorSpillsAndSortsStablyAsStdStableSort) {
  std::mt19937_64 rng(7);
  std::vector<Rec> want;
  SpilledVector<Rec> v;
  for (uint32_t i = 0; i < 3000000; ++i) {
    Rec r{rng() % 100000, i};
    want.push_back(r);
    v.push_back(r);
  }
  ASSERT_TRUE(v.spilled());
  ASSERT_EQ(v.size(), want.size());
  EXPECT_EQ(v[1234567].index, 1234567u);
  v.update(42, [](Rec& r) { r.key = 7; });
  want[42].key = 7;
  v.set(2999999, Rec{5, 2999999});
  want[2999999] = Rec{5, 2999999};
  SpilledVector<Rec> copy(v);
  auto byKey = [](const Rec& r) { return r.key; };
  v.sortStably(byKey);
  ASSERT_EQ(v.size(), want.size());
  EXPECT_EQ(misplacedAfterStableSort(v, want), 0u);
  // The copy was taken before the sort and is a vector of its own.
  EXPECT_EQ(copy[42].key, 7u);
  EXPECT_EQ(copy[42].index, 42u);
  EXPECT_EQ(copy.back().index, 2999999u);
}

// The merge takes a bounded number of runs at a time (a buffer each), in several passes when
// there are more: with a fan-in of 2 and 3 each pass must keep equal keys in insertion order.
TEST(SpilledVector, MergesInSeveralPassesStably) {
  for (size_t fanIn : {2, 3}) {
    std::mt19937_64 rng(fanIn);
    std::vector<Rec> want;
    SpilledVector<Rec> v;
    for (uint32_t i = 0; i < 1500000; ++i) {  // 24 MB: 12 runs of 2 MiB
      Rec r{rng() % 5000, i};
      want.push_back(r);
      v.push_back(r);
    }
    ASSERT_TRUE(v.spilled());
    v.sortStably([](const Rec& r) { return r.key; }, fanIn);
    ASSERT_EQ(v.size(), want.size());
    EXPECT_EQ(misplacedAfterStableSort(v, want), 0u) << "fan-in " << fanIn;
  }
}

TEST(SpilledVector, ShortVectorStaysInMemory) {
  SpilledVector<Rec> v;
  for (uint32_t i = 0; i < 1000; ++i) v.push_back(Rec{uint64_t(1000 - i), i});
  EXPECT_FALSE(v.spilled());
  v.sortStably([](const Rec& r) { return r.key; });
  EXPECT_EQ(v.front().index, 999u);
  EXPECT_EQ(v.back().index, 0u);
  EXPECT_THROW(v.at(1000), std::out_of_range);
}
