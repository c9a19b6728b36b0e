// What the report says about a run whose GPU timing was sampled: static findings paired with
// lines whose calls fell outside the windows, the measured rules' counts "in the timed windows",
// the header sentence and JSON, the windows in the trace and the page.
#include <gtest/gtest.h>

#include <sstream>

#include "LogBuilder.h"
#include "SampleTimelines.h"
#include "TraceChecks.h"
#include "runtime/GpuCoverage.h"
#include "runtime/HtmlReport.h"
#include "runtime/Pairing.h"
#include "runtime/PerfettoTrace.h"

namespace sl::runtime::test {
namespace {

constexpr const char* kCoverage = "in the timed windows (2.98 ms of 99.98 ms)";

RunData runOf(const ProcessLog& log) {
  RunData run;
  run.timelines.push_back(timelineOf(log));
  run.overlaps.push_back(analyzeOverlap(run.timelines.back()));
  return run;
}

// The windows of TwoWindows, [1 ms, 3 ms) and [50 ms, 51 ms), a blocking stream created at 1.02 ms,
// an untimed launch at 20 ms and a sync at 100 ms: 2.98 ms of 99.98 ms timed, as there.
LogBuilder sampledRun() {
  LogBuilder b;
  b.twoWindows();
  b.call(slog::Api::cudaStreamCreate, 1 * kMs + 20000, 1 * kMs + 30000, 5);
  b.log.calls.back().rec.a0 = 0x5555;  // a blocking stream (default flags)
  b.launch(20 * kMs, 50);
  b.call(slog::Api::cudaDeviceSynchronize, 100 * kMs, 101 * kMs, 30);
  b.trailer(slog::GpuTiming::Sampled);
  return b;
}

TEST(SampledReport, PairingSaysWhatWasTimedOfEachLine) {
  TwoWindows s;
  RunData run = runOf(s.b.log);
  std::vector<Finding> statics = {finding("SL302", "proj/train.py", 20, "sync in a loop"),
                                  finding("SL601", "proj/train.py", 10, "legacy stream")};
  pairWithRun(statics, run, {});
  const auto& untimed = statics[0].properties["runtime"];
  EXPECT_EQ(untimed["status"], "measured");
  EXPECT_EQ(untimed["gpuWork"], "not timed");
  EXPECT_EQ(untimed["gpuTimedCalls"], 0);
  EXPECT_EQ(untimed["gpuTiming"]["mode"], "sampled");
  EXPECT_NE(statics[0].message.find("200 CUDA calls from this line; calls recorded, GPU work not "
                                    "timed (sampled GPU timing: none of its 200 calls fell in a "
                                    "timed window)"), std::string::npos) << statics[0].message;
  EXPECT_NE(statics[1].message.find("GPU work of the 5 of its 5 calls " + std::string(kCoverage) +
                                    ": 5 on stream 13"), std::string::npos) << statics[1].message;
  EXPECT_FALSE(statics[1].properties["runtime"].contains("gpuWork"));
}

TEST(SampledReport, SideStreamOverlapIsThatOfTheWindows) {
  LogBuilder b = sampledRun();
  b.launch(1 * kMs + 40000, 10, 0);  // the legacy default stream: the main one
  b.kernel(1 * kMs + 100000, 1 * kMs + 300000, 7);
  b.launch(1 * kMs + 50000, 11);     // the side stream, after it: no overlap
  b.kernel(1 * kMs + 400000, 1 * kMs + 600000, 13);
  auto found = sideStreamNoOverlap(runOf(b.log), RuntimeRuleOptions{});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("busy for 200.0 us (1 kernels, 0 copies) " + std::string(kCoverage) +
                                  " but overlapped"), std::string::npos) << found[0].message;
  EXPECT_EQ(found[0].properties["gpuTiming"]["timedMicros"], 2980.0);
}

TEST(SampledReport, WorkOffTheRegionStreamIsCountedInTheWindows) {
  LogBuilder b = sampledRun();
  b.launch(1 * kMs + 40000, 40);           // the region's own work, on the side stream
  b.kernel(1 * kMs + 100000, 1 * kMs + 110000, 13);
  b.launch(1 * kMs + 50000, 0, 0);         // autograd's thread: the default stream
  b.kernel(1 * kMs + 120000, 1 * kMs + 220000, 7);
  auto found = workOffRegionStream(runOf(b.log));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("1 of the 2 GPU operations it set off " + std::string(kCoverage) +
                                  " ran on default stream 7"), std::string::npos) << found[0].message;
}

// The legacy stream's waits: judged only where a stream's previous op is known. A blocking
// stream's first op in a later window may have waited for untimed work of its own.
TEST(SampledReport, LegacySerializationJudgesOnlyOpsWhosePredecessorWasTimed) {
  LogBuilder b = sampledRun();
  b.launch(1 * kMs + 100000, 30, 0);  // legacy, line 30
  b.launch(1 * kMs + 150000, 10);     // blocking stream: ready at once, starts when legacy ends
  b.launch(50 * kMs + 50000, 30, 0);
  b.launch(50 * kMs + 60000, 10);
  b.kernel(1 * kMs + 200000, 1 * kMs + 700000, 7);
  b.kernel(1 * kMs + 700000, 1 * kMs + 900000, 13);
  b.kernel(50 * kMs + 100000, 50 * kMs + 500000, 7);
  b.kernel(50 * kMs + 500000, 50 * kMs + 600000, 13);  // its stream ran untimed work at 20 ms
  auto found = legacyStreamSerialization(runOf(b.log), RuntimeRuleOptions{});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].properties["serializedOperations"], 1);
  EXPECT_EQ(found[0].loc.line, 30u);
  EXPECT_NE(found[0].message.find("makes them wait for it: " + std::string(kCoverage) + ", 1 GPU operations"),
            std::string::npos) << found[0].message;
}

TEST(SampledReport, HeaderAndJsonStateTheCoverage) {
  ProcessTimeline t = timelineOf(TwoWindows().b.log);
  EXPECT_EQ(coverageSummary(t),
            "GPU timing sampled: 2 windows, 2.98 ms of 99.98 ms (3.0 %); host calls recorded throughout");
  std::ostringstream one, two;
  writeCoverageText(one, {t});
  EXPECT_EQ(one.str(), coverageSummary(t) + "\n\n");
  ProcessTimeline old = sampleTimeline();  // timed throughout: says nothing
  writeCoverageText(two, {old, t});
  EXPECT_EQ(two.str(), "pid 77: " + coverageSummary(t) + "\n\n");
  EXPECT_EQ(coverageSummary(old), "");
  EXPECT_TRUE(coverageJson(old).is_null());

  auto j = coverageJson(t);
  EXPECT_EQ(j["mode"], "sampled");
  EXPECT_EQ(j["sampled"], true);
  EXPECT_EQ(j["windows"], 2);
  EXPECT_EQ(j["timedMicros"], 2980.0);
  EXPECT_EQ(j["runMicros"], 99980.0);
  EXPECT_EQ(j["timedCalls"], 5);
  EXPECT_EQ(j["calls"], 206);
  EXPECT_EQ(j["summary"], coverageSummary(t));
}

TEST(SampledReport, TimingSwitchedOffIsSaid) {
  LogBuilder b;  // SL_GPU_TIMING=off: no windows, no GPU records
  b.launch(1 * kMs);
  b.trailer(slog::GpuTiming::Off);
  ProcessTimeline t = timelineOf(b.log);
  EXPECT_EQ(coverageSummary(t), "GPU timing off (SL_GPU_TIMING=off): host calls only");
  auto j = coverageJson(t);
  EXPECT_EQ(j["mode"], "off");
  EXPECT_EQ(j["sampled"], false);
  EXPECT_EQ(j["timedCalls"], 0);
  std::ostringstream out;
  writeCoverageText(out, {t});
  EXPECT_EQ(out.str(), coverageSummary(t) + "\n\n");
}

TEST(SampledReport, ProfilerAndProgramSwitchesAreNamed) {
  LogBuilder b;
  b.window(true, 1 * kMs, 1 * kMs + 10, slog::WindowReason::Program);
  b.launch(1 * kMs + 100);
  b.kernel(1 * kMs + 500, 1 * kMs + 900);
  b.window(false, 2 * kMs, 2 * kMs + 10, slog::WindowReason::Yield);
  b.launch(3 * kMs);
  b.trailer(slog::GpuTiming::Continuous);
  std::string s = coverageSummary(timelineOf(b.log));
  EXPECT_EQ(s.rfind("GPU timing on part of the run: 1 window, ", 0), 0u) << s;
  EXPECT_NE(s.find(", until a profiler took CUPTI; the program switched recording itself"), std::string::npos) << s;
}

TEST(SampledReport, TraceHasAWindowTrack) {
  ProcessTimeline t = timelineOf(TwoWindows().b.log);
  std::ostringstream out;
  writePerfettoTrace(out, {t});
  TraceIndex ix = checkTrace(nlohmann::json::parse(out.str()));
  EXPECT_EQ(ix.slices.size(), t.calls.size() + t.ops.size() + t.windows.size());
  size_t windows = 0;
  for (const auto& e : ix.slices)
    if (e["cat"] == "window") {
      windows++;
      EXPECT_EQ(e["tid"], 0);
      EXPECT_EQ(e["args"]["openedBy"], "sampling schedule");
    }
  EXPECT_EQ(windows, 2u);
  EXPECT_EQ(ix.threadNames.at({1, 0}), "GPU timing windows (sampled)");
}

TEST(SampledReport, PageShowsTheCoverageAndTheWindows) {
  HtmlReportInput in;
  in.timelines = {timelineOf(TwoWindows().b.log), sampleTimeline()};
  std::ostringstream out;
  writeHtmlReport(out, in);
  std::string html = out.str();
  EXPECT_NE(html.find("<p class=\"note\">" + coverageSummary(in.timelines[0]) +
                      ". The stream lanes and the overlap show the GPU work of the timed windows "
                      "only; shaded stretches were not timed.</p>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"k\">of the run GPU-timed (sampled)</span>"), std::string::npos);
  // Relative to the process's first event (1.02 ms): the first window starts there.
  EXPECT_NE(html.find("\"windows\":{\"d\":[1980000,1000000],\"t\":[0,48980000]}"), std::string::npos);
  EXPECT_EQ(html.find("\"windows\"", html.find("\"windows\"") + 1), std::string::npos);  // not for the other
}

}  // namespace
}  // namespace sl::runtime::test
