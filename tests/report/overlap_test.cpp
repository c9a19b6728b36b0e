// analyzeOverlap's sweep against the definition (intersections of busy intervals), on random
// timelines, and on a log with 10,000 streams (issue 17: the pairwise version took minutes and
// gigabytes at 3,000 streams). Timing is measured in bench, never asserted here.
#include <gtest/gtest.h>

#include <random>

#include "runtime/Overlap.h"

using namespace sl::runtime;

namespace {

ProcessTimeline randomTimeline(std::mt19937& rng, uint32_t streams, size_t ops, uint64_t span) {
  ProcessTimeline t;
  for (uint32_t s = 0; s < streams; ++s) {
    StreamInfo info;
    info.device = s % 2;
    info.id = 10 + s;
    t.streams.push_back(info);
  }
  std::uniform_int_distribution<uint32_t> pick(0, streams - 1);
  std::uniform_int_distribution<uint64_t> at(0, span), len(1, span / 10 + 1);
  for (size_t k = 0; k < ops; ++k) {
    GpuOp o;
    o.kind = sl::slog::ActivityKind::Kernel;
    uint32_t s = pick(rng);
    o.device = s % 2;
    o.stream = 10 + s;
    o.startNs = at(rng);
    o.endNs = o.startNs + len(rng);
    o.name = "k" + std::to_string(k % 3);
    t.ops.push_back(o);
  }
  return t;
}

}  // namespace

TEST(Overlap, SweepMatchesTheDefinition) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    ProcessTimeline t = randomTimeline(rng, 1 + rng() % 6, rng() % 40, 1000);
    OverlapSummary got = analyzeOverlap(t);
    auto busy = busyByStream(t);
    ASSERT_EQ(got.streams.size(), t.streams.size());
    for (size_t i = 0; i < t.streams.size(); ++i) {
      const auto& si = t.streams[i];
      Intervals others;
      for (const auto& sj : t.streams)
        if (sj.device == si.device && sj.id != si.id) {
          const auto& b = busy[{sj.device, sj.id}];
          for (const Interval& iv : b) others.push_back(iv);
        }
      EXPECT_EQ(got.streams[i].overlappedNs, intersectionLength(busy[{si.device, si.id}], unite(others)))
          << "round " << round << " stream " << si.id;
    }
    size_t pairs = 0;
    for (const auto& p : got.pairs) {
      EXPECT_EQ(p.overlapNs, intersectionLength(busy[{p.device, p.a}], busy[{p.device, p.b}]));
      ++pairs;
    }
    size_t want = 0;  // every same-device pair (few streams)
    for (size_t i = 0; i < t.streams.size(); ++i)
      for (size_t j = i + 1; j < t.streams.size(); ++j) want += t.streams[i].device == t.streams[j].device;
    EXPECT_EQ(pairs, want);
  }
}

TEST(Overlap, TenThousandStreams) {
  std::mt19937 rng(11);
  ProcessTimeline t = randomTimeline(rng, 10000, 40000, 100000000);
  OverlapSummary got = analyzeOverlap(t);
  EXPECT_EQ(got.streams.size(), 10000u);
  // Beyond 64 streams a device lists only the pairs that were busy together.
  for (const auto& p : got.pairs) EXPECT_GT(p.overlapNs, 0u);
  EXPECT_LT(got.pairs.size(), 200000u);
}

// GPU op names are interned (OpName.h): ops of one kernel share one string, which outlives the
// timeline that made it.
TEST(Overlap, OpNamesAreSharedAndOutliveTheirTimeline) {
  GpuOp copy;
  {
    ProcessTimeline t;
    t.ops.resize(2);
    t.ops.update(0, [](GpuOp& op) { op.name = std::string("ampere_sgemm_128x64_nn"); });
    t.ops.update(1, [](GpuOp& op) { op.name = "ampere_sgemm_128x64_nn"; });
    EXPECT_EQ(&t.ops[0].name.str(), &t.ops[1].name.str());
    copy = t.ops[0];
  }
  EXPECT_EQ(copy.name, "ampere_sgemm_128x64_nn");
  EXPECT_FALSE(copy.name == std::string("other"));
  EXPECT_EQ(GpuOp{}.name.str(), "");
}
