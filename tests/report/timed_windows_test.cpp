// Sampled GPU timing on the reading side: Window records read from a .slog (sorted, a log cut off
// inside a window), the windows a log's switches describe, which calls count as GPU-timed, and
// the order join of GPU ops to launches across untimed stretches.
#include <gtest/gtest.h>

#include <unistd.h>

#include "LogBuilder.h"

namespace sl::runtime::test {
namespace {

TEST(TimedWindows, SwitchesBecomeWindows) {
  std::vector<slog::WindowRecord> sw = {
      windowRecord(false, 5, 6),                                      // off while off: nothing
      windowRecord(true, 10, 12), windowRecord(true, 15, 16),         // on while on: nothing
      windowRecord(false, 20, 22, slog::WindowReason::Yield),
      windowRecord(true, 30, 31, slog::WindowReason::Program)};       // never switched off
  auto w = timedWindows(sw);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].beginNs, 10u);  // the on switch's tBefore ...
  EXPECT_EQ(w[0].endNs, 22u);    // ... to the off switch's tAfter
  EXPECT_TRUE(w[0].closed);
  EXPECT_EQ(w[0].closedBy, slog::WindowReason::Yield);
  EXPECT_EQ(w[1].openedBy, slog::WindowReason::Program);
  EXPECT_FALSE(w[1].closed);
  EXPECT_EQ(w[1].endNs, UINT64_MAX);
  EXPECT_EQ(windowContaining(w, 9), -1);
  EXPECT_EQ(windowContaining(w, 10), 0);
  EXPECT_EQ(windowContaining(w, 21), 0);
  EXPECT_EQ(windowContaining(w, 22), -1);
  EXPECT_EQ(windowContaining(w, 1000), 1);
  EXPECT_EQ(windowBegunBy(w, 25), 0);  // an op running on after its window closed
  EXPECT_EQ(windowBegunBy(w, 5), -1);
}

TEST(TimedWindows, CallsInWindowsAreTimedAndTheJoinSkipsTheOthers) {
  TwoWindows s;
  ProcessTimeline t = timelineOf(s.b.log);
  ASSERT_EQ(t.calls.size(), s.b.log.calls.size());  // one call per enter time: indices agree
  for (size_t i : s.timed1) EXPECT_TRUE(t.calls[i].gpuTimed) << i;
  for (size_t i : s.timed2) EXPECT_TRUE(t.calls[i].gpuTimed) << i;
  for (size_t i : s.untimed) EXPECT_FALSE(t.calls[i].gpuTimed) << i;
  EXPECT_FALSE(t.calls.back().gpuTimed);  // the sync at 100 ms
  // Every kernel joined to its own launch: the 200 untimed launches of the same kernel would
  // have used up the join's look-ahead (32) before the second window's launches.
  ASSERT_EQ(t.ops.size(), 5u);
  std::vector<size_t> expect = s.timed1;
  expect.insert(expect.end(), s.timed2.begin(), s.timed2.end());
  for (size_t i = 0; i < t.ops.size(); ++i) EXPECT_EQ(t.ops[i].call, int(expect[i])) << "op " << i;
  EXPECT_TRUE(t.streams.at(0).handleKnown);
}

TEST(TimedWindows, CoverageOfTheRun) {
  ProcessTimeline t = timelineOf(TwoWindows().b.log);
  EXPECT_TRUE(t.sampled);
  EXPECT_EQ(t.gpuTimingMode, slog::GpuTiming::Sampled);
  ASSERT_EQ(t.windows.size(), 2u);
  EXPECT_EQ(t.beginNs, 1 * kMs + 20000);
  EXPECT_EQ(t.runNs(), 101 * kMs - (1 * kMs + 20000));
  // The first window counts from the run's first event, the second whole.
  EXPECT_EQ(t.timedNs, (3 * kMs - (1 * kMs + 20000)) + 1 * kMs);
}

TEST(TimedWindows, LogsWithoutWindowsAreTimedThroughout) {
  LogBuilder b;
  b.launch(1000);
  b.launch(2000);
  b.kernel(3000, 4000);
  b.kernel(5000, 6000);
  ProcessTimeline t = timelineOf(b.log);
  EXPECT_FALSE(t.sampled);
  EXPECT_TRUE(t.windows.empty());
  for (const auto& c : t.calls) EXPECT_TRUE(c.gpuTimed);
  EXPECT_EQ(t.timedNs, t.runNs());
  EXPECT_EQ(t.ops[1].call, 1);

  b.log.activities.clear();  // no GPU timing at all: nothing was timed
  t = timelineOf(b.log);
  EXPECT_FALSE(t.gpuTiming);
  for (const auto& c : t.calls) EXPECT_FALSE(c.gpuTimed);
  EXPECT_EQ(t.timedNs, 0u);
}

TEST(TimedWindows, AWindowLeftOpenLastsUntilTheLogEnds) {
  LogBuilder b;  // killed inside the second window: no `off`, no trailer
  b.window(true, 1 * kMs, 1 * kMs + 10);
  b.window(false, 2 * kMs, 2 * kMs + 10);
  b.window(true, 5 * kMs, 5 * kMs + 10);
  b.launch(1 * kMs + 100);
  b.kernel(1 * kMs + 500, 1 * kMs + 900);
  size_t gap = b.launch(3 * kMs);
  size_t late = b.launch(9 * kMs);
  b.kernel(9 * kMs + 500, 9 * kMs + 900);
  ProcessTimeline t = timelineOf(b.log);
  ASSERT_EQ(t.windows.size(), 2u);
  EXPECT_FALSE(t.windows[1].closed);
  EXPECT_EQ(t.windows[1].endNs, t.endNs);
  EXPECT_FALSE(t.calls[gap].gpuTimed);
  EXPECT_TRUE(t.calls[late].gpuTimed);
  EXPECT_EQ(t.ops.at(1).call, int(late));
  EXPECT_TRUE(t.sampled);
  EXPECT_EQ(t.gpuTimingMode, slog::GpuTiming::Unstated);
}

TEST(TimedWindows, WorkAfterTheExitSwitchIsNoSamplingGap) {
  LogBuilder b;  // SL_GPU_TIMING=always: one window from the first call to exit
  b.window(true, 1 * kMs, 1 * kMs + 10);
  b.launch(1 * kMs + 100);
  b.kernel(1 * kMs + 500, 1 * kMs + 900);
  b.window(false, 2 * kMs, 2 * kMs + 10, slog::WindowReason::Exit);
  size_t atExit = b.call(slog::Api::cudaMemcpy, 3 * kMs, 3 * kMs + 100, 40);
  b.trailer(slog::GpuTiming::Continuous);
  ProcessTimeline t = timelineOf(b.log);
  EXPECT_FALSE(t.calls[atExit].gpuTimed);
  EXPECT_FALSE(t.sampled);

  b.log.windows.back().why = slog::WindowReason::Yield;  // a profiler took CUPTI: a real gap
  EXPECT_TRUE(timelineOf(b.log).sampled);
}

TEST(TimedWindows, ReaderSortsWindowsAndKeepsThemWhenTheLogIsCutOff) {
  SlogFile f;  // windows switched on two threads, the later chunk first; no trailer
  f.chunk(7, windowRecord(true, 5000, 5010), windowRecord(false, 6000, 6010));
  f.chunk(8, windowRecord(true, 1000, 1010), windowRecord(false, 2000, 2010));
  f.chunk(7, windowRecord(true, 9000, 9010));
  char path[] = "/tmp/sl-windows-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  f.write(path);
  ProcessLog log;
  std::string error;
  ASSERT_TRUE(readLog(path, log, error)) << error;
  ASSERT_EQ(log.windows.size(), 5u);
  for (size_t i = 1; i < log.windows.size(); ++i)
    EXPECT_LT(log.windows[i - 1].tBefore, log.windows[i].tBefore);
  EXPECT_FALSE(log.trailer);
  ASSERT_EQ(log.problems.size(), 1u);
  EXPECT_NE(log.problems[0].find("no trailer"), std::string::npos);
  auto w = timedWindows(log.windows);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_FALSE(w[2].closed);

  // A window record cut short is damage: read as far as that, windows before it kept.
  slog::RecHeader shortWindow{slog::RecType::Window, 8};
  f.chunk(7, shortWindow, uint32_t(1), uint32_t(0));
  f.write(path);
  ASSERT_TRUE(readLog(path, log, error)) << error;
  EXPECT_EQ(log.windows.size(), 5u);
  ASSERT_FALSE(log.problems.empty());
  EXPECT_NE(log.problems[0].find("short window record"), std::string::npos);
  unlink(path);
}

}  // namespace
}  // namespace sl::runtime::test
