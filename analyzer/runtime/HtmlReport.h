// `streamlint report --html FILE`: one self-contained HTML page (inline CSS, JS and data; no
// external resource of any kind, enforced by its Content-Security-Policy) that shows the findings
// with their measured evidence and source lines, each process's streams and host threads on a
// zoomable timeline, and how much the streams overlapped. Docs: docs/report.md.
//
// Every string from a log or a finding (kernel names, paths, messages) is escaped: text in the
// markup is HTML-escaped, the inline JSON escapes '<', '>' and '&', and the script only ever
// assigns such strings with textContent.
#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/Finding.h"
#include "runtime/LogReader.h"
#include "runtime/Overlap.h"
#include "runtime/RankAlignment.h"
#include "runtime/Timeline.h"

namespace sl::runtime {

// What the recorder or the reader said about a log's completeness (not in ProcessTimeline).
struct LogHealth {
  uint64_t droppedRecords = 0;     // ring full or memory cap
  uint64_t droppedThreads = 0;     // threads that got no ring (memory cap)
  uint64_t droppedActivities = 0;  // CUPTI's own drops
  bool truncated = false;          // no trailer: the process died before its last flush
  uint64_t apiRecords = 0;         // every CUDA call of the log, polls too (the text report's count)
  std::vector<std::string> problems;  // the reader's damage notes
};
LogHealth logHealth(const ProcessLog& log);

struct HtmlReportInput {
  std::string title = "streamlint report";
  std::vector<ProcessTimeline> timelines;
  std::vector<OverlapSummary> overlaps;  // one per timeline (same order); may be empty
  std::vector<LogHealth> health;         // one per timeline (same order); may be empty
  // Ranked as they should be shown. A finding is tied to the calls and GPU work whose source
  // location (the call's own or attributed line) is finding.path:finding.loc.line.
  std::vector<Finding> findings;
  // Page size bounds: per process the first maxOps GPU ops and the first maxCalls blocking host
  // calls (by time) go on the timeline; the page says when more were left out.
  size_t maxOps = 100000;
  size_t maxCalls = 50000;
  // Source excerpts read finding.path; relative paths are taken relative to this directory
  // (empty: the current directory).
  std::string sourceRoot;
  // Per rank compute, communication, exposed communication and waits (RankAlignment.h): a
  // "Ranks" table when there are several ranks or NCCL calls. Empty: none.
  std::vector<RankView> ranks;
  RankAlignment align;
};

void writeHtmlReport(std::ostream& out, const HtmlReportInput& input);

}  // namespace sl::runtime
