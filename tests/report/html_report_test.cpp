// writeHtmlReport on synthetic timelines: one self-contained page, user strings escaped in the
// markup and in the inline JSON, source excerpts, the ops cap, and which calls a finding marks.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "SampleTimelines.h"
#include "runtime/HtmlReport.h"
#include "runtime/RuntimeRules.h"

namespace sl::runtime::test {
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

std::string render(const HtmlReportInput& in) {
  std::ostringstream out;
  writeHtmlReport(out, in);
  return out.str();
}

// The page's inline data, parsed back.
nlohmann::json pageData(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"sl-data\">";
  size_t b = html.find(open);
  EXPECT_NE(b, std::string::npos);
  b += open.size();
  return nlohmann::json::parse(html.substr(b, html.find("</script>", b) - b));
}

HtmlReportInput sampleInput() {
  HtmlReportInput in;
  in.timelines = {sampleTimeline()};
  in.overlaps = {analyzeOverlap(in.timelines[0])};
  in.findings.push_back(finding("SL901", "/home/u/proj/train.py", 20, "`cudaStreamSynchronize` blocked the host"));
  in.findings.back().properties = {{"calls", 1}, {"blockedMicros", 5.0}, {"api", "cudaStreamSynchronize"}};
  return in;
}

TEST(HtmlReport, IsOneSelfContainedPage) {
  std::string html = render(sampleInput());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);  // CSP: nothing loads
  for (const char* external : {"http:", "https:", "//cdn", "<link", "@import", "url(", " src=", "<img", "<iframe"})
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  EXPECT_EQ(count(html, "<script"), 2u);
  EXPECT_EQ(count(html, "</script>"), 2u);
  EXPECT_NE(html.find("data-rendered=\"pending\""), std::string::npos);
}

TEST(HtmlReport, SummaryFindingsEvidenceAndOverlap) {
  HtmlReportInput in = sampleInput();
  in.health = {LogHealth{}};
  in.health[0].droppedRecords = 17;
  in.health[0].apiRecords = 9;  // 3 polls only counted: the text report's number is shown
  std::string html = render(in);
  EXPECT_NE(html.find("<span class=\"v\">9</span><span class=\"k\">CUDA calls</span>"), std::string::npos);
  EXPECT_NE(html.find("9 CUDA calls (6 drawn; polls are counted, not drawn)"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"v\">4</span><span class=\"k\">GPU ops</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"v\">17</span><span class=\"k\">records dropped</span>"), std::string::npos);
  EXPECT_NE(html.find("17 records were dropped while recording"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"rule\">SL901"), std::string::npos);
  // In sentences with units (issue 32), not raw keys.
  EXPECT_NE(html.find("<li>`cudaStreamSynchronize` blocked the host for " + humanTime(5000) + " in 1 call.</li>"),
            std::string::npos);
  EXPECT_EQ(html.find("blockedMicros"), std::string::npos);
  EXPECT_NE(html.find("<h3>Stream overlap</h3>"), std::string::npos);
  EXPECT_NE(html.find("<td>default stream 7</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>stream 13</td>"), std::string::npos);
  EXPECT_EQ(html.find("records dropped</span>", html.find("17 records") + 1), std::string::npos);
  // The run (its timeline) comes first, the findings after it.
  EXPECT_LT(html.find("<div class=\"timeline\""), html.find("<section class=\"findings\">"));
}

TEST(HtmlReport, FindingsMarkTheCallsAndOpsOfTheirLine) {
  HtmlReportInput in = sampleInput();
  in.findings.push_back(finding("SL401", "proj/train.py", 10, "relative path, launch line"));
  in.findings.push_back(finding("SL101", "oj/train.py", 10, "not the same file"));
  in.findings.push_back(finding("SL101", "", 0, "no location"));
  auto data = pageData(render(in));
  auto f = data["findings"];
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0]["hits"], nlohmann::json::parse("[[0,[1]]]"));
  EXPECT_EQ(f[1]["hits"], nlohmann::json::parse("[[0,[0]]]"));
  EXPECT_TRUE(f[2]["hits"].empty());
  EXPECT_TRUE(f[3]["hits"].empty());
  // Ops carry the location of their launch; the attributed memset carries train.py:10 too.
  auto p = data["processes"][0];
  EXPECT_EQ(p["ops"]["s"], nlohmann::json::parse("[0,0,0,0]"));
  // Host lanes hold only blocking calls: the sync (train.py:20) and the free (libfoo.so).
  EXPECT_EQ(p["calls"]["s"], nlohmann::json::parse("[1,2]"));
  EXPECT_EQ(p["lanes"].size(), 4u);  // 2 streams, 2 threads
}

TEST(HtmlReport, HostileStringsAreEscapedEverywhere) {
  HtmlReportInput in;
  in.title = std::string("report ") + kHostileName;
  in.timelines = {sampleTimeline(1234, 0, 0, kHostileName)};
  in.timelines[0].exe = std::string("/bin/") + kHostileMarker;
  in.findings.push_back(finding(kHostileName, std::string("/x/") + kHostileName, 3, kHostileMarker));
  in.findings.back().properties = {{kHostileName, kHostileMarker}};
  std::string html = render(in);
  EXPECT_EQ(count(html, "<script"), 2u);
  EXPECT_EQ(count(html, "</script>"), 2u);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<!--"), std::string::npos);
  EXPECT_NE(html.find("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  // The JSON still holds the exact name.
  auto names = pageData(html)["processes"][0]["names"];
  EXPECT_NE(std::find(names.begin(), names.end(), kHostileName), names.end());
}

TEST(HtmlReport, SourceExcerptAroundTheLineOrSaysItIsMissing) {
  char dir[] = "/tmp/sl-html-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  std::string path = std::string(dir) + "/step.py";
  {
    std::ofstream f(path);
    for (int i = 1; i <= 12; ++i) f << (i == 6 ? "if a < b and c > d:  # <b>" : "line " + std::to_string(i)) << "\n";
  }
  HtmlReportInput in;
  in.sourceRoot = dir;
  in.findings.push_back(finding("SL302", "step.py", 6, "sync in loop"));
  in.findings.push_back(finding("SL302", "gone.py", 6, "missing file"));
  in.findings.push_back(finding("SL302", "step.py", 99, "past the end"));
  std::string html = render(in);
  EXPECT_NE(html.find("<span class=\"line hit\"><span class=\"ln\">6</span>if a &lt; b and c &gt; d:  # &lt;b&gt;</span>"),
            std::string::npos);
  EXPECT_NE(html.find("<span class=\"ln\">3</span>line 3"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"ln\">9</span>line 9"), std::string::npos);
  EXPECT_EQ(html.find("<span class=\"ln\">2</span>"), std::string::npos);
  EXPECT_EQ(html.find("<span class=\"ln\">10</span>"), std::string::npos);
  EXPECT_EQ(count(html, "source not available"), 2u);
  std::remove(path.c_str());
  rmdir(dir);
}

TEST(HtmlReport, CapsTheOpsDrawnAndSaysSo) {
  HtmlReportInput in;
  in.timelines = {sampleTimeline(1234, 0, 500)};
  in.maxOps = 100;
  in.maxCalls = 1;
  std::string html = render(in);
  EXPECT_NE(html.find("Only the first 100 of 504 GPU ops are drawn (404 left out"), std::string::npos);
  EXPECT_NE(html.find("Only the first 1 blocking host calls are drawn (1 left out)"), std::string::npos);
  auto p = pageData(html)["processes"][0];
  EXPECT_EQ(p["ops"]["t"].size(), 100u);
  EXPECT_EQ(p["calls"]["t"].size(), 1u);
  for (const char* col : {"d", "l", "k", "n", "s"}) EXPECT_EQ(p["ops"][col].size(), 100u) << col;
}

TEST(HtmlReport, ProcessWithoutGpuTimingSaysSo) {
  HtmlReportInput in;
  in.timelines = {sampleTimeline()};
  in.timelines[0].ops.clear();
  in.timelines[0].gpuTiming = false;
  std::string html = render(in);
  EXPECT_NE(html.find("No GPU timing in this log"), std::string::npos);
}

}  // namespace
}  // namespace sl::runtime::test
