// The writers on the logs recorded on an H200 (tests/runtime/fixtures): readLog → buildTimeline →
// analyzeOverlap → trace and page. Real kernel names, real launch→kernel correlation.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <sstream>

#include "TraceChecks.h"
#include "runtime/HtmlReport.h"
#include "runtime/PerfettoTrace.h"
#include "runtime/Symbolizer.h"

namespace sl::runtime::test {
namespace {

std::vector<std::string> fixtures() {
  std::vector<std::string> out;
  if (DIR* d = opendir(SL_FIXTURES_DIR)) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".slog") == 0) out.push_back(std::string(SL_FIXTURES_DIR) + "/" + n);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

ProcessTimeline timelineOf(const std::string& path) {
  ProcessLog log;
  std::string error;
  EXPECT_TRUE(readLog(path, log, error)) << error;
  Symbolizer sym;
  return buildTimeline(log, sym);
}

TEST(FixtureReport, TraceOfEveryFixtureIsWellFormed) {
  auto files = fixtures();
  ASSERT_FALSE(files.empty()) << SL_FIXTURES_DIR;
  std::vector<ProcessTimeline> all;
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    ProcessTimeline t = timelineOf(f);
    std::ostringstream out;
    writePerfettoTrace(out, {t});
    TraceIndex ix = checkTrace(nlohmann::json::parse(out.str()));
    size_t correlated = 0, kernels = 0;
    for (const auto& op : t.ops) {
      correlated += op.call >= 0;
      kernels += op.kind == slog::ActivityKind::Kernel;
    }
    EXPECT_EQ(ix.flows, correlated);
    EXPECT_EQ(ix.slices.size(), t.calls.size() + t.ops.size());
    if (t.gpuTiming) {
      EXPECT_GT(kernels, 0u);
    }
    all.push_back(std::move(t));
  }
  // All fixtures in one trace: distinct processes, still well-formed.
  std::ostringstream out;
  writePerfettoTrace(out, all);
  TraceIndex ix = checkTrace(nlohmann::json::parse(out.str()));
  EXPECT_GE(ix.processNames.size(), 2 * files.size() - 1);
}

TEST(FixtureReport, PageOfEveryFixtureHoldsItsOpsAndOverlap) {
  HtmlReportInput in;
  for (const auto& f : fixtures()) {
    in.timelines.push_back(timelineOf(f));
    in.overlaps.push_back(analyzeOverlap(in.timelines.back()));
  }
  std::ostringstream out;
  writeHtmlReport(out, in);
  const std::string html = out.str();
  for (const auto& t : in.timelines) {
    EXPECT_NE(html.find("<h2>Process pid " + std::to_string(t.pid)), std::string::npos);
    if (!t.ops.empty()) {
      EXPECT_NE(html.find("<h3>Stream overlap</h3>"), std::string::npos);
    }
  }
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
}

}  // namespace
}  // namespace sl::runtime::test
