// Writes the pages and traces the headless-Chromium test opens (render_in_chromium.py), and that
// tests/report/screenshot-report.sh can photograph for the docs:
//   OUT/synthetic.html   two synthetic processes, one with 100k kernels, hostile kernel names and
//                        a hostile finding (nothing may run from them), one GPU-timed in windows
//   OUT/fixtures.html    the H200 fixture logs with their SL901 findings
//   OUT/fixtures.trace.json
// Usage: write_sample_report OUT_DIR [FIXTURES_DIR]
#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>

#include "SampleTimelines.h"
#include "runtime/HostBlocking.h"
#include "runtime/HtmlReport.h"
#include "runtime/PerfettoTrace.h"
#include "runtime/Symbolizer.h"

using namespace sl;
using namespace sl::runtime;

namespace {

bool writeFile(const std::string& path, const std::function<void(std::ostream&)>& body) {
  std::ofstream out(path);
  body(out);
  out.close();
  if (!out) std::cerr << "write_sample_report: cannot write " << path << "\n";
  return bool(out);
}

HtmlReportInput syntheticInput() {
  HtmlReportInput in;
  in.title = std::string("synthetic report ") + test::kHostileName;
  in.timelines = {test::sampleTimeline(1234, 0, 100000, test::kHostileName),
                  test::sampleTimeline(1240, 1, 0, test::kHostileMarker)};
  test::sampleTiming(in.timelines[1], {{0, 5000}, {7000, 8500}});  // the page shades the rest
  for (const auto& t : in.timelines) in.overlaps.push_back(analyzeOverlap(t));
  in.health = {LogHealth{}, LogHealth{}};
  in.health[1].droppedRecords = 3;
  in.findings.push_back(test::finding("SL901", "/home/u/proj/train.py", 20,
                                "`cudaStreamSynchronize` blocked the host for 5.0 µs in 1 call"));
  in.findings.back().properties = {{"api", "cudaStreamSynchronize"}, {"calls", 1}, {"blockedMicros", 5.0}};
  in.findings.push_back(test::finding("SL401", "proj/train.py", 10, std::string("launches ") + test::kHostileMarker));
  in.findings.back().properties = {{"kernelsPerStream", {{"default stream 7", 50003}, {"stream 13", 50001}}},
                                   {test::kHostileName, test::kHostileMarker}};
  in.findings.push_back(test::finding("SL302", "elsewhere.py", 3, "a line no recorded call came from"));
  return in;
}

HtmlReportInput fixtureInput(const std::string& dir, std::vector<ProcessLog>& logs) {
  HtmlReportInput in;
  in.title = "streamlint report: H200 fixtures";
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".slog") == 0) files.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    ProcessLog log;
    std::string error;
    if (!readLog(f, log, error)) { std::cerr << error << "\n"; continue; }
    Symbolizer sym;
    in.timelines.push_back(buildTimeline(log, sym));
    in.overlaps.push_back(analyzeOverlap(in.timelines.back()));
    in.health.push_back(logHealth(log));
    logs.push_back(std::move(log));
  }
  HostBlockingOptions hb;
  hb.minBlockingMicros = 0;
  Symbolizer sym;
  in.findings = measuredHostBlocking(logs, hb, sym);
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) { std::cerr << "usage: write_sample_report OUT_DIR [FIXTURES_DIR]\n"; return 2; }
  const std::string out = argv[1];
  bool ok = writeFile(out + "/synthetic.html", [](std::ostream& o) { writeHtmlReport(o, syntheticInput()); });
  if (argc > 2) {
    std::vector<ProcessLog> logs;
    HtmlReportInput in = fixtureInput(argv[2], logs);
    if (in.timelines.empty()) { std::cerr << "write_sample_report: no fixtures in " << argv[2] << "\n"; return 1; }
    ok &= writeFile(out + "/fixtures.html", [&](std::ostream& o) { writeHtmlReport(o, in); });
    ok &= writeFile(out + "/fixtures.trace.json", [&](std::ostream& o) { writePerfettoTrace(o, in.timelines); });
  }
  return ok ? 0 : 1;
}
