// What the report lists and how it reads (issue 32): SL401 and SL903 on one line are one entry,
// one-time set-up is one note after the per-step costs, streams carry the source's names,
// evidence is said in sentences, findings are markers on the page's timeline and instant events
// in the trace.
#include <gtest/gtest.h>

#include <sstream>

#include "SampleTimelines.h"
#include "TraceChecks.h"
#include "runtime/EvidenceText.h"
#include "runtime/HtmlReport.h"
#include "runtime/PerfettoTrace.h"
#include "runtime/ReportEntries.h"
#include "runtime/StreamNames.h"

namespace sl::runtime::test {
namespace {

TEST(ReportEntries, StaticFindingConfirmedByTheMeasuredRuleIsOneEntry) {
  Finding sl401 = finding("SL401", "proj/train.py", 26,
                          "backward runs inside a region — measured: 920 CUDA calls (see SL901, SL903)");
  sl401.properties["runtime"] = {{"status", "measured"}, {"measuredBy", {"SL901", "SL903"}}, {"costMicros", 5.0}};
  Finding sl903 = finding("SL903", "/home/u/proj/train.py", 26, "776 of 789 GPU operations ran on default stream 7");
  sl903.severity = Severity::Error;
  sl903.properties = {{"offRegionOperations", 776}};
  Finding sl901 = finding("SL901", "/home/u/proj/train.py", 26, "`cudaMalloc` blocked the host");
  std::vector<Finding> statics = {sl401}, measured = {sl903, sl901};
  mergeConfirmed(statics, measured);
  ASSERT_EQ(measured.size(), 1u);  // SL903 went into SL401; SL901 (another problem) stays
  EXPECT_EQ(measured[0].ruleId, "SL901");
  const Finding& f = statics[0];
  EXPECT_EQ(f.ruleId, "SL401");
  EXPECT_EQ(f.severity, Severity::Error);
  EXPECT_EQ(f.message, "backward runs inside a region — measured: 920 CUDA calls (see SL901); "
                       "confirmed at runtime (SL903): 776 of 789 GPU operations ran on default stream 7");
  EXPECT_EQ(f.properties["runtime"]["confirmedBy"]["rule"], "SL903");
  EXPECT_EQ(f.properties["runtime"]["confirmedBy"]["properties"]["offRegionOperations"], 776);
  EXPECT_EQ(f.properties["runtime"]["status"], "measured");
}

TEST(ReportEntries, AnotherLineIsNotMerged) {
  Finding sl401 = finding("SL401", "train.py", 26, "x");
  sl401.properties["runtime"] = {{"status", "measured"}, {"measuredBy", {"SL903"}}};
  std::vector<Finding> statics = {sl401}, measured = {finding("SL903", "train.py", 27, "y")};
  mergeConfirmed(statics, measured);
  ASSERT_EQ(measured.size(), 1u);
  EXPECT_EQ(measured[0].message, "y");  // kept whole, not moved onto itself
  EXPECT_FALSE(statics[0].properties["runtime"].contains("confirmedBy"));
}

Finding sl901(const std::string& path, uint32_t line, const std::string& phase, double micros, bool library = false) {
  Finding f = finding("SL901", path, line, "`cudaMalloc` blocked the host");
  f.properties = {{"api", "cudaMalloc"}, {"phase", phase}, {"blockedMicros", micros}, {"costMicros", micros},
                  {"calls", 2}, {"insideLibrary", library}};
  return f;
}

TEST(ReportEntries, SetUpSitesFoldIntoOneNoteAfterThePerStepCosts) {
  std::vector<Finding> all = {sl901("a.py", 1, "per-step", 10), sl901("lib/torch.py", 2, "set-up", 5000, true),
                              sl901("a.py", 3, "set-up", 300), sl901("a.py", 4, "set-up", 20)};
  std::vector<Finding> unfolded = all;
  foldSetUp(unfolded, false);
  ASSERT_EQ(unfolded.size(), 4u);  // JSON and SARIF: each site, as a note
  for (const auto& f : unfolded)
    EXPECT_EQ(f.severity, f.properties["phase"] == "set-up" ? Severity::Note : Severity::Warning);
  foldSetUp(all, true);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].properties["phase"], "per-step");
  const Finding& note = all[1];
  EXPECT_EQ(note.severity, Severity::Note);
  EXPECT_EQ(note.loc.line, 3u);  // the user's costliest line, not the library's
  EXPECT_EQ(note.notes.size(), 3u);
  EXPECT_EQ(note.properties["sites"].size(), 3u);
  EXPECT_NE(note.message.find("one-time set-up blocked the host for 5.32 ms in 6 calls at 3 sites"), std::string::npos)
      << note.message;
}

TEST(StreamNames, FromTheEnclosingWithOrTheLaunchArguments) {
  std::vector<std::string> py = {"def step(x):",
                                 "    with torch.cuda.stream(backward_stream):",
                                 "        if x is not None:",
                                 "            loss1.backward()",
                                 "    y = x + 1"};
  EXPECT_EQ(streamVariableAt(py, 3, true), "backward_stream");
  EXPECT_EQ(streamVariableAt(py, 4, true), "");  // after the region
  EXPECT_EQ(streamVariableAt({"with torch.cuda.stream(self.comm):", "    a.add_(1)"}, 1, true), "self.comm");
  EXPECT_EQ(streamVariableAt({"with torch.cuda.stream(torch.cuda.Stream()):", "    a.add_(1)"}, 1, true), "");
  EXPECT_EQ(streamVariableAt({"  kernel<<<grid, 256, 0, copy_stream>>>(p);"}, 0, false), "copy_stream");
  EXPECT_EQ(streamVariableAt({"  cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s1);"}, 0, false), "s1");
  EXPECT_EQ(streamVariableAt({"  kernel<<<grid, 256, 0, 0>>>(p);"}, 0, false), "");
  std::vector<std::string> cpp = {"void step() {",
                                  "  {",
                                  "    c10::cuda::CUDAStreamGuard guard(side);",
                                  "    loss1.backward();",
                                  "  }",
                                  "  loss0.backward();",
                                  "}"};
  EXPECT_EQ(streamVariableAt(cpp, 3, false), "side");
  EXPECT_EQ(streamVariableAt(cpp, 5, false), "");  // the guard's block closed before this line
}

TEST(StreamNames, TheLabelPutsTheNameFirstAndTheNumberBeside) {
  StreamInfo s;
  s.id = 14;
  EXPECT_EQ(s.label(), "stream 14");
  s.name = "backward_stream";
  EXPECT_EQ(s.label(), "backward_stream (stream 14)");
}

TEST(EvidenceText, SentencesWithUnitsNotKeys) {
  nlohmann::json p = {{"api", "cudaMalloc"}, {"calls", 9}, {"blockedMicros", 1560.2}, {"maxBlockedMicros", 244.1},
                      {"phase", "set-up"}, {"insideLibrary", false}, {"costMicros", 1560.2},
                      {"gpuTiming", {{"mode", "sampled"}, {"timedMicros", 1.6e6}, {"runMicros", 3.12e7}}},
                      {"apis", {{"__cudaLaunchKernel", 464}, {"cuLaunchKernel", 208}, {"cudaMemcpyAsync", 13}}}};
  std::string all;
  for (const auto& s : evidenceSentences(p)) all += s + "\n";
  EXPECT_NE(all.find("`cudaMalloc` blocked the host for 1.56 ms in 9 calls (longest 244.1 us)."), std::string::npos) << all;
  EXPECT_NE(all.find("One-time set-up"), std::string::npos) << all;
  EXPECT_NE(all.find("Calls: 672 kernel launches, 13 cudaMemcpyAsync."), std::string::npos) << all;
  EXPECT_NE(all.find("1.60 s of the run's 31.20 s were timed"), std::string::npos) << all;
  nlohmann::json paired = {{"runtime", {{"calls", 920}, {"blockedMicros", 1742.8}, {"gpuTimedCalls", 280},
                                         {"status", "measured"}}}};
  for (const auto& s : evidenceSentences(paired)) all += s + "\n";
  EXPECT_NE(all.find("Its 920 CUDA calls blocked the host for 1.74 ms in total."), std::string::npos) << all;
  EXPECT_NE(all.find("280 of its calls fell in GPU-timed windows"), std::string::npos) << all;
  for (const char* raw : {"Micros", "inside library", "__cudaLaunchKernel", "false", "costMicros", "gpu timed calls"})
    EXPECT_EQ(all.find(raw), std::string::npos) << raw << " in:\n" << all;
}

TEST(FindingMarks, TraceHasAnInstantEventPerFindingAtItsLine) {
  ProcessTimeline t = sampleTimeline();
  std::vector<Finding> findings = {finding("SL901", "/home/u/proj/train.py", 20, "the sync blocked"),
                                   finding("SL501", "other.py", 3, "not in the run")};
  std::ostringstream out;
  writePerfettoTrace(out, {t}, findings);
  TraceIndex ix = checkTrace(nlohmann::json::parse(out.str()));
  ASSERT_EQ(ix.instants.size(), 1u);  // a line without calls marks nothing
  const auto& e = ix.instants[0];
  EXPECT_EQ(e["cat"], "finding");
  EXPECT_EQ(e["name"], "SL901 train.py:20");
  EXPECT_EQ(e["args"]["message"], "the sync blocked");
  EXPECT_EQ(e["args"]["source"], "/home/u/proj/train.py:20");
}

TEST(FindingMarks, PageHasAMarkerPerFindingOnItsProcess) {
  HtmlReportInput in;
  in.timelines = {sampleTimeline()};
  in.findings = {finding("SL901", "/home/u/proj/train.py", 20, "the sync blocked"),
                 finding("SL501", "other.py", 3, "not in the run")};
  std::ostringstream out;
  writeHtmlReport(out, in);
  const std::string html = out.str();
  const std::string open = "<script type=\"application/json\" id=\"sl-data\">";
  size_t b = html.find(open) + open.size();
  nlohmann::json data = nlohmann::json::parse(html.substr(b, html.find("</script>", b) - b));
  const auto& marks = data["processes"][0]["marks"];
  ASSERT_EQ(marks["f"].size(), 1u);
  EXPECT_EQ(marks["f"][0], 0);
  EXPECT_EQ(data["findings"][0]["message"], "the sync blocked");
  EXPECT_EQ(data["findings"][0]["severity"], "warning");
}

}  // namespace
}  // namespace sl::runtime::test
