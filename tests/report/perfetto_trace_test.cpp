// writePerfettoTrace on synthetic timelines: the JSON parses, every track is named, every flow has
// both ends inside slices, times are microseconds with nanosecond decimals, and logs of two hosts
// with the same OS pid stay apart.
#include <gtest/gtest.h>

#include <sstream>

#include "SampleTimelines.h"
#include "TraceChecks.h"
#include "runtime/PerfettoTrace.h"

namespace sl::runtime::test {
namespace {

nlohmann::json traceOf(const std::vector<ProcessTimeline>& ts) {
  std::ostringstream out;
  writePerfettoTrace(out, ts);
  return nlohmann::json::parse(out.str());
}

const nlohmann::json* sliceNamed(const TraceIndex& ix, const std::string& name) {
  for (const auto& e : ix.slices)
    if (e["name"] == name) return &e;
  return nullptr;
}

TEST(PerfettoTrace, TracksAreNamedAndFlowsJoinLaunchesToKernels) {
  auto tl = sampleTimeline();
  TraceIndex ix = checkTrace(traceOf({tl}));
  EXPECT_EQ(ix.flows, tl.ops.size());  // every op has its launch call
  EXPECT_EQ(ix.slices.size(), tl.calls.size() + tl.ops.size());

  std::set<std::string> procs, threads;
  for (const auto& [pid, n] : ix.processNames) procs.insert(n);
  for (const auto& [k, n] : ix.threadNames) threads.insert(n);
  EXPECT_TRUE(procs.count("GPU 0 (rank 0 pid 1234)"));
  EXPECT_TRUE(procs.count("host rank 0 pid 1234: python3.12"));
  EXPECT_TRUE(threads.count(tl.streams[0].label()));
  EXPECT_TRUE(threads.count(tl.streams[1].label()));
  EXPECT_TRUE(threads.count("thread 100 (Python)"));
  EXPECT_TRUE(threads.count("thread 200"));
}

TEST(PerfettoTrace, TimesAreMicrosecondsFromTheFirstEventWithNanosecondDecimals) {
  std::ostringstream out;
  writePerfettoTrace(out, {sampleTimeline()});
  // The first kernel starts 1234 ns after the timeline's begin and lasts 4766 ns.
  EXPECT_NE(out.str().find("\"ts\":1.234,\"dur\":4.766"), std::string::npos);
  TraceIndex ix = checkTrace(nlohmann::json::parse(out.str()));
  const auto* k = sliceNamed(ix, "void at::native::foo<float>(float*, int)");
  ASSERT_TRUE(k);
  EXPECT_EQ((*k)["cat"], "kernel");
  EXPECT_EQ((*k)["args"]["source"], "/home/u/proj/train.py:10");
  EXPECT_EQ((*k)["args"]["launchedBy"], "cudaLaunchKernel");
  const auto* copy = sliceNamed(ix, "copy HtoD");
  ASSERT_TRUE(copy);
  EXPECT_EQ((*copy)["args"]["bytes"], 4096);
  EXPECT_EQ((*copy)["args"]["copyKind"], "HtoD");
}

TEST(PerfettoTrace, HostCallsCarryApiStreamAndSource) {
  TraceIndex ix = checkTrace(traceOf({sampleTimeline()}));
  const auto* sync = sliceNamed(ix, "cudaStreamSynchronize");
  ASSERT_TRUE(sync);
  EXPECT_EQ((*sync)["args"]["api"], "cudaStreamSynchronize");
  EXPECT_EQ((*sync)["args"]["stream"], "stream 13");
  EXPECT_EQ((*sync)["args"]["source"], "/home/u/proj/train.py:20");
  EXPECT_EQ((*sync)["args"]["blocking"], true);
  EXPECT_EQ((*sync)["dur"], 5.0);
  // The autograd thread's memset is reported at the Python line it is attributed to.
  const auto* set = sliceNamed(ix, "cudaMemsetAsync");
  ASSERT_TRUE(set);
  EXPECT_EQ((*set)["args"]["source"], "/home/u/proj/train.py:10");
  EXPECT_EQ((*set)["args"]["attributed"], true);
}

TEST(PerfettoTrace, SeveralLogsGetTheirOwnProcessesEvenWithTheSameOsPid) {
  auto a = sampleTimeline(1234, 0), b = sampleTimeline(1234, 1);
  b.host = "node2";
  TraceIndex ix = checkTrace(traceOf({a, b}));
  std::set<std::string> names;
  for (const auto& [pid, n] : ix.processNames) names.insert(n);
  EXPECT_EQ(ix.processNames.size(), 4u);  // 2 hosts + 2 GPUs
  EXPECT_EQ(names.size(), 4u);
  EXPECT_TRUE(names.count("GPU 0 (rank 1 pid 1234 on node2)"));
  EXPECT_EQ(ix.flows, a.ops.size() + b.ops.size());
}

TEST(PerfettoTrace, OddKernelNamesAreValidJson) {
  auto tl = sampleTimeline(1, -1, 0, std::string(kHostileName) + "\"\\\n\xff");
  TraceIndex ix = checkTrace(traceOf({tl}));
  bool found = false;
  for (const auto& e : ix.slices)
    found = found || e["name"].get<std::string>().rfind(kHostileName, 0) == 0;
  EXPECT_TRUE(found);
  EXPECT_TRUE(ix.processNames.count(2));
  EXPECT_EQ(ix.processNames[2], "GPU 0 (pid 1)");
}

TEST(PerfettoTrace, MangledKernelNamesAreShownDemangled) {
  auto tl = sampleTimeline(1, 0, 0, "_ZN2at6native3barIdEEvPT_i");
  TraceIndex ix = checkTrace(traceOf({tl}));
  const auto* k = sliceNamed(ix, "void at::native::bar<double>(double*, int)");
  ASSERT_TRUE(k);
  EXPECT_EQ((*k)["args"]["mangled"], "_ZN2at6native3barIdEEvPT_i");
  EXPECT_FALSE(sliceNamed(ix, "_ZN2at6native3barIdEEvPT_i"));
  EXPECT_FALSE((*sliceNamed(ix, "copy HtoD")).at("args").contains("mangled"));
}

TEST(PerfettoTrace, EmptyInputIsAnEmptyTrace) {
  auto j = traceOf({});
  EXPECT_TRUE(j["traceEvents"].empty());
}

}  // namespace
}  // namespace sl::runtime::test
