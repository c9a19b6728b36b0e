// `streamlint report DIR [PATH...] [--static FILE.sarif] [--format F] [--html FILE] [--trace FILE]`:
// reads every .slog in DIR (or one .slog file), measures host blocking (SL901), stream overlap
// (SL902), work that left its side-stream region (SL903) and legacy-stream serialization (SL905),
// and joins static findings — from analysing PATH, or from SARIF made elsewhere — with that
// evidence. Everything is ranked by measured cost. Exit: 0 none, 1 findings (0 with --exit-zero),
// 2 usage/input.
//
// Streams, as ruff does: stdout carries the findings and after them the summary lines (what was
// read, what SL904 covered, the count, the files written); stderr only errors and warnings. -q
// leaves findings only. --html/--trace without --format or -o print no findings (the page holds
// them): the summary only. With findings in a machine format (json, sarif, ...), the summary
// lines go to stderr, so that stdout stays data (or empty, with -o).
#include "runtime/ReportCommand.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/AtomicWrite.h"
#include "output/Output.h"
#include "runtime/GpuCoverage.h"
#include "runtime/HostBlocking.h"
#include "runtime/HtmlReport.h"
#include "runtime/Pairing.h"
#include "runtime/PerfettoTrace.h"
#include "runtime/RankSummary.h"
#include "runtime/ReportEntries.h"
#include "runtime/RanksReport.h"
#include "runtime/RuntimeRules.h"
#include "runtime/StreamNames.h"
#include "runtime/StreamRaces.h"
#include "runtime/SpilledVector.h"
#include "runtime/StreamedLog.h"
#include "runtime/Symbolizer.h"
#include "rules/Rule.h"

namespace sl::runtime {

namespace {

constexpr const char* kUsage =
    "usage: streamlint report DIR|FILE.slog [PATH...] [options]\n"
    "       streamlint report SUMMARY.json... | SUMMARY_DIR [options]   (merge rank summaries)\n"
    "  Measured findings from the logs `streamlint run` wrote, joined with the static findings of\n"
    "  PATH (files or directories analysed as `streamlint check` would) and of --static files.\n"
    "options:\n"
    "  --static FILE.sarif      static findings made elsewhere (`streamlint check --format sarif`)\n"
    "  --format F               text (default), concise, json, sarif, github, lintrunner\n"
    "  --html FILE              also write a self-contained HTML report (timeline, findings)\n"
    "  --trace FILE             also write a Chrome/Perfetto trace (open in ui.perfetto.dev)\n"
    "  -o, --output FILE        write the findings to FILE instead of stdout (replaced whole);\n"
    "                           the summary lines stay on stdout (stderr for json, sarif, ...)\n"
    "  -q, --quiet              findings only: no summary lines, no stream tables\n"
    "  --exit-zero              exit 0 even when there are findings (2 still means an error)\n"
    "  --summary OUT.json       only write the ranks' summary of these logs, for a later merge\n"
    "                           (docs/ranks.md)\n"
    "  --symbols DIR            look for native modules missing at their recorded path in DIR\n"
    "  --min-blocking-us N      SL901: report call sites blocked at least N us in total (100)\n"
    "  --min-overlap-share P    SL902: a side stream overlapping others below P % of its busy\n"
    "                           time is reported (5)\n";

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The .slog files of DIR, sorted; or the one file given.
bool listLogs(const std::string& input, std::vector<std::string>& files, std::string& error) {
  struct stat st;
  if (stat(input.c_str(), &st) != 0) { error = input + ": no such file or directory"; return false; }
  if (!S_ISDIR(st.st_mode)) {
    if (!S_ISREG(st.st_mode)) { error = input + ": not a regular file (a log is a file .slog, or a directory of them)"; return false; }
    files.push_back(input);
    return true;
  }
  DIR* d = opendir(input.c_str());
  if (!d) { error = input + ": cannot read the directory"; return false; }
  while (dirent* e = readdir(d)) {
    if (!endsWith(e->d_name, ".slog")) continue;
    // Opening a FIFO named *.slog would block forever: only regular files are logs.
    struct stat f;
    std::string path = input + "/" + e->d_name;
    if (stat(path.c_str(), &f) == 0 && S_ISREG(f.st_mode)) files.push_back(path);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  if (files.empty()) { error = input + ": no .slog logs here (record some with `streamlint run --out " + input + " -- CMD`)"; return false; }
  return true;
}

struct Options {
  OutputOptions out;
  HostBlockingOptions hostBlocking;
  RuntimeRuleOptions rules;
  std::string logs, html, trace, summary, output;
  bool quiet = false, exitZero = false, formatGiven = false;
  // Summary lines (module comment): printed on stdout after the findings unless quiet.
  std::vector<std::string> summaryLines;
  std::vector<std::string> summaries;  // rank summaries to merge instead of logs
  std::vector<std::string> sources, sarifs, symbolDirs;
};

bool parseNumber(const std::string& opt, const std::string& value, double& out) {
  char* end = nullptr;
  double v = strtod(value.c_str(), &end);
  if (value.empty() || *end || v < 0) {
    std::cerr << "streamlint report: " << opt << " wants a number >= 0, got '" << value << "'\n";
    return false;
  }
  out = v;
  return true;
}

// 0 parsed, 1 --help printed, 2 usage error.
int parseArgs(const std::vector<std::string>& args, Options& o) {
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i], value;
    auto takeValue = [&](const std::string& name) {
      if (a.rfind(name + "=", 0) == 0) { value = a.substr(name.size() + 1); return true; }
      if (a == name && i + 1 < args.size()) { value = args[++i]; return true; }
      return false;
    };
    double share = 0;
    if (a == "-h" || a == "--help") { std::cout << kUsage; return 1; }
    if (a == "-q" || a == "--quiet") {
      o.quiet = true;
    } else if (a == "--exit-zero") {
      o.exitZero = true;
    } else if (takeValue("--format") || takeValue("--output-format")) {
      o.formatGiven = true;
      if (!parseFormat(value, o.out.format)) { std::cerr << "streamlint report: unknown format '" << value << "'\n" << kUsage; return 2; }
    } else if (takeValue("--min-blocking-us")) {
      if (!parseNumber(a, value, o.hostBlocking.minBlockingMicros)) return 2;
    } else if (takeValue("--min-overlap-share")) {
      if (!parseNumber(a, value, share) || share > 100) return 2;
      o.rules.minOverlapShare = share / 100;
    } else if (takeValue("--static")) {
      o.sarifs.push_back(value);
    } else if (takeValue("--symbols")) {
      o.symbolDirs.push_back(value);
    } else if (takeValue("--html")) {
      o.html = value;
    } else if (takeValue("--trace")) {
      o.trace = value;
    } else if (takeValue("--summary")) {
      o.summary = value;
    } else if (takeValue("-o") || takeValue("--output")) {
      o.output = value;
    } else if (a.rfind("-", 0) == 0) {
      std::cerr << "streamlint report: unknown or incomplete option " << a << "\n" << kUsage;
      return 2;
    } else {
      positional.push_back(a);
    }
  }
  if (positional.empty()) { std::cerr << "streamlint report: no log directory given\n" << kUsage; return 2; }
  size_t first = 0;
  while (first < positional.size() && isSummaryInput(positional[first])) o.summaries.push_back(positional[first++]);
  if (!o.summaries.empty() && (!o.summary.empty() || !o.html.empty() || !o.trace.empty())) {
    std::cerr << "streamlint report: rank summaries give no --summary, --html or --trace (they hold no timeline)\n";
    return 2;
  }
  o.logs = positional[0];
  o.sources.assign(positional.begin() + std::max<size_t>(first, 1), positional.end());
  return 0;
}

// Polls (cudaStreamQuery/cudaEventQuery) neither block nor queue work: no analysis reads them,
// and allocator-heavy programs make millions. Counted, not held (~170 B each in memory).
// A poll that succeeded is kept: it tells the host the work is done, an ordering edge
// (SL904; the caching allocator polls record_stream's events before it reuses a block).
bool keptCall(const slog::ApiRecord& r) { return slog::apiClass(r.api) != slog::ApiClass::Query || r.ret == 0; }

// Reads the logs' records other than calls and GPU records (those are read again, one at a time,
// by streamTimeline), saying on stderr what they hold and what they lost. False on unreadable input.
bool readLogs(const std::vector<std::string>& files, std::vector<ProcessLog>& logs,
              std::vector<LogHealth>& health, OutputOptions& out, std::vector<std::string>& summary) {
  bool ok = true;
  uint64_t calls = 0, dropped = 0, droppedThreads = 0, activities = 0, yielded = 0;
  std::set<std::string> notices;
  for (const auto& f : files) {
    ProcessLog log;
    std::string error;
    ReadOptions ro;
    ro.keep = keptCall;
    ro.onCall = [](const ApiCall&, const uint64_t*) {};  // counted (keptCalls), not held
    ro.keepActivities = false;
    if (!readLog(f, log, error, ro)) {
      std::cerr << "streamlint report: " << error << "\n";
      out.inputErrors.push_back(error);
      ok = false;
      continue;
    }
    for (const auto& p : log.problems) {
      std::cerr << "streamlint report: " << f << ": " << p << "\n";
      out.inputErrors.push_back(f + ": " + p);
    }
    for (const auto& m : log.messages) notices.insert(m);
    calls += log.apiRecords;
    activities += log.activityRecords;
    if (log.trailer) {
      for (const auto& m : unwrittenParts(f, *log.trailer)) {
        std::cerr << "streamlint report: " << m << "\n";
        out.inputErrors.push_back(m);
      }
      dropped += log.trailer->dropped;
      droppedThreads += log.trailer->droppedThreads;
      yielded += log.trailer->cuptiState == uint32_t(slog::CuptiState::Yielded);
    }
    health.push_back(logHealth(log));
    logs.push_back(std::move(log));
  }
  if (!ok) return false;
  // Ranks in order (logs are named host-pid): every output then lists rank 0 first.
  std::vector<size_t> order(logs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return uint32_t(logs[a].header.rank) < uint32_t(logs[b].header.rank);  // unknown (-1) last
  });
  std::vector<ProcessLog> sorted;
  std::vector<LogHealth> sortedHealth;
  for (size_t i : order) { sorted.push_back(std::move(logs[i])); sortedHealth.push_back(std::move(health[i])); }
  logs.swap(sorted);
  health.swap(sortedHealth);
  for (const auto& n : notices) std::cerr << "streamlint report: the recorder said: " << n << "\n";
  std::ostringstream line;
  line << "streamlint report: " << logs.size() << (logs.size() == 1 ? " process, " : " processes, ")
       << calls << " CUDA calls, " << activities << " GPU activity records";
  if (dropped || droppedThreads)
    line << "; " << dropped << " records dropped (ring full, memory cap, log size cap or a failed write), " << droppedThreads
              << " threads unrecorded (memory cap)";
  if (yielded)
    line << "; GPU timing yielded to a profiler (torch.profiler took CUPTI) in " << yielded
         << (yielded == 1 ? " process" : " processes");
  summary.push_back(line.str());
  if (dropped)
    out.inputErrors.push_back(std::to_string(dropped) + " records were dropped while recording");
  return true;
}

// Per process, the streams' busy time and overlap, after the findings (text format).
void writeOverlapText(std::ostream& os, const RunData& run) {
  for (size_t i = 0; i < run.timelines.size(); ++i) {
    const ProcessTimeline& t = run.timelines[i];
    if (!t.gpuTiming || run.overlaps[i].streams.empty()) continue;
    Coverage timed = coverageOf(t);  // sampled: busy and overlap of the timed windows only
    os << "\nGPU streams of pid " << t.pid << (t.rank >= 0 ? " rank " + std::to_string(t.rank) : "")
       << " (" << t.exe << ")" << (timed.sampled() ? ", " + timed.inWindows() : "") << ":\n";
    for (const auto& so : run.overlaps[i].streams) {
      const StreamInfo* s = t.stream(so.device, so.stream);
      char buf[256];
      snprintf(buf, sizeof buf, "  %-28s busy %10s, overlapped by other streams %5.1f %%\n",
               s ? s->label().c_str() : "?", humanTime(double(so.busyNs)).c_str(), so.share() * 100);
      os << buf;
    }
    for (const auto& p : run.overlaps[i].pairs) {
      if (!p.overlapNs) continue;
      const StreamInfo *a = t.stream(p.device, p.a), *b = t.stream(p.device, p.b);
      char buf[320];
      snprintf(buf, sizeof buf, "  %s + %s: both busy %s (%.1f %% / %.1f %% of their busy time)",
               a ? a->label().c_str() : "?", b ? b->label().c_str() : "?",
               humanTime(double(p.overlapNs)).c_str(), p.shareOfA * 100, p.shareOfB * 100);
      os << buf;
      // Only where the overlap is substantial: a few microseconds say nothing about saturation.
      bool substantial = p.overlapNs >= 100000 && std::min(p.shareOfA, p.shareOfB) >= 0.05;
      if (substantial && p.overlappedSlowdown >= 1.3) {
        snprintf(buf, sizeof buf, "; their kernels ran %.1fx longer while overlapped than alone: "
                 "each stream could fill the GPU by itself, so running them at once shared the GPU "
                 "rather than using idle parts of it, and bought little speed-up", p.overlappedSlowdown);
        os << buf;
      }
      os << "\n";
    }
  }
}

void applySeverities(std::vector<Finding>& findings, const std::vector<RuleInfo>* rules);

// What the race check (SL904) covered: sanitize logs only; windows of lost records judged nothing.
// Lines not judged are warnings (stderr); what was checked is a summary line.
void writeRaceSummary(std::vector<std::string>& summary, const RaceCheckSummary& r, OutputOptions& out) {
  for (const auto& n : r.notJudged) {
    std::cerr << "streamlint report: warning: SL904 not judged for " << n << "\n";
    out.inputErrors.push_back("SL904 not judged for " + n);
  }
  if (!r.processes) return;
  std::ostringstream os;
  os << "streamlint report: SL904 checked " << r.accesses << " accesses to device memory in " << r.processes
     << (r.processes == 1 ? " process" : " processes");
  if (r.gaps)
    os << "; " << r.gaps << " windows (" << humanTime(double(r.gapNs))
       << ") lost records (ring full) and were not judged (raise SL_RING_KB)";
  if (r.unrecordedLaunches)
    os << "; " << r.unrecordedLaunches << " launches fell outside the --sanitize-sample windows, so "
       << r.unknownBlocks << " blocks first used around them were not judged";
  if (r.leftOverWords)
    os << "; " << r.leftOverWords << " launch parameter words were left over from earlier launches' arguments "
       << "(the launch also named freed memory) and not taken for accesses";
  summary.push_back(os.str());
  if (r.gaps) out.inputErrors.push_back(std::to_string(r.gaps) + " sanitize windows lost records: no SL904 judged there");
}

// The streams' busy and overlapped time per process, and what the GPU timing covered when it
// ran in windows, for JSON "run" and SARIF run.properties.
nlohmann::json overlapJson(const RunData& run) {
  nlohmann::json procs = nlohmann::json::array();
  for (size_t i = 0; i < run.timelines.size(); ++i) {
    const ProcessTimeline& t = run.timelines[i];
    nlohmann::json streams = nlohmann::json::array(), pairs = nlohmann::json::array();
    auto label = [&](uint32_t d, uint32_t id) {
      const StreamInfo* s = t.stream(d, id);
      return s ? s->label() : "stream " + std::to_string(id);
    };
    for (const auto& so : run.overlaps[i].streams)
      streams.push_back({{"stream", label(so.device, so.stream)}, {"device", so.device},
                         {"busyMicros", double(so.busyNs) / 1e3},
                         {"overlappedMicros", double(so.overlappedNs) / 1e3},
                         {"overlapShare", so.share()}});
    for (const auto& p : run.overlaps[i].pairs)
      pairs.push_back({{"a", label(p.device, p.a)}, {"b", label(p.device, p.b)},
                       {"overlapMicros", double(p.overlapNs) / 1e3}, {"shareOfA", p.shareOfA},
                       {"shareOfB", p.shareOfB}, {"overlappedSlowdown", p.overlappedSlowdown}});
    procs.push_back({{"pid", t.pid}, {"rank", t.rank}, {"exe", t.exe}, {"gpuTiming", t.gpuTiming},
                     {"streams", streams}, {"streamPairs", pairs}});
    if (auto coverage = coverageJson(t); !coverage.is_null()) procs.back()["gpuTimingCoverage"] = coverage;
  }
  return {{"processes", procs}};
}

// A file the user named (-o, --summary, --html, --trace), replaced whole or left as it was.
bool writeUserFile(const std::string& path, const std::string& bytes, const char* what) {
  std::string why;
  if (writeFileAtomically(path, bytes, why)) return true;
  std::cerr << "streamlint report: " << path << ": cannot write the " << what << ": " << why << "\n";
  return false;
}

// Whether findings are written at all: --html/--trace alone print none (the page and the trace
// hold them); --format or -o asks for them.
bool findingsWanted(const Options& o) { return !o.output.empty() || o.formatGiven || (o.html.empty() && o.trace.empty()); }
bool findingsOnStdout(const Options& o) { return findingsWanted(o) && o.output.empty(); }
bool textLike(Format f) { return f == Format::Text || f == Format::Concise; }

bool flushStdout() {
  std::cout.flush();
  if (std::cout) return true;
  std::cerr << "streamlint report: cannot write the report to stdout: " << strerror(errno ? errno : EIO) << "\n";
  return false;
}

// The findings (and the text format's tables): to -o FILE, or stdout, or nowhere (above). Output
// that did not arrive (stdout on a full disk, a closed pipe) is an error, not a silent 0 or 1.
bool emitReport(const std::string& text, const Options& o) {
  if (!findingsWanted(o)) return true;
  if (!o.output.empty()) return writeUserFile(o.output, text, "report");
  std::cout << text;
  return flushStdout();
}

// "streamlint report: 3 findings (SL401: 1, SL901: 2)": the count, as a summary line where the
// text format's own count line is not on stdout (findings elsewhere, or none).
void addCountLine(Options& o, const std::vector<Finding>& all) {
  bool countOnStdout = findingsOnStdout(o) && o.out.format == Format::Text && !all.empty();
  if (countOnStdout) return;
  if (all.empty()) { o.summaryLines.push_back("streamlint report: no findings"); return; }
  std::map<std::string, int> perRule;
  for (const auto& f : all) ++perRule[f.ruleId];
  std::string line = "streamlint report: " + std::to_string(all.size()) + (all.size() == 1 ? " finding (" : " findings (");
  bool first = true;
  for (const auto& [id, n] : perRule) line += (first ? "" : ", ") + id + ": " + std::to_string(n), first = false;
  o.summaryLines.push_back(line + ")" + (o.output.empty() ? "" : " in " + o.output));
}

// The summary lines, on stdout after the findings; none with -q. With findings in a machine
// format (on stdout or in -o FILE) they go to stderr instead: stdout is data, or nothing.
bool emitSummary(const Options& o) {
  if (o.quiet) return true;
  if (findingsWanted(o) && !textLike(o.out.format)) {
    for (const auto& l : o.summaryLines) std::cerr << l << "\n";
    return true;
  }
  for (const auto& l : o.summaryLines) std::cout << l << "\n";
  return flushStdout();
}

int exitStatus(const Options& o, const std::vector<Finding>& all) { return all.empty() || o.exitZero ? 0 : 1; }

// `--summary OUT.json`: the ranks of these logs, for a merge elsewhere (RankSummary.h).
int writeSummary(Options& o, const std::vector<RankView>& views) {
  if (!writeUserFile(o.summary, rankSummaryJson(views).dump() + "\n", "summary")) return 2;
  o.summaryLines.push_back("streamlint report: wrote " + o.summary + " (" + std::to_string(views.size()) +
                           (views.size() == 1 ? " rank)" : " ranks)"));
  return emitSummary(o) ? 0 : 2;
}

// Rank summaries instead of logs: the cross-rank part of the report and SL906, in O(ranks).
int mergeSummaries(Options& o, const std::vector<std::string>& args, const ReportHooks& hooks) {
  std::vector<RankView> views;
  std::string error;
  if (!readRankSummaries(o.summaries, views, error)) { std::cerr << "streamlint report: " << error << "\n"; return 2; }
  o.summaryLines.push_back("streamlint report: " + std::to_string(views.size()) + " ranks from " +
                           std::to_string(o.summaries.size()) +
                           (o.summaries.size() == 1 ? " summary input" : " summary inputs"));
  RankAlignment align = alignRanks(views);
  std::vector<Finding> all = exposedCommunication(views, align, o.rules);
  applySeverities(all, hooks.rules);
  rankByCost(all);
  o.out.toolCommand = commandLine("streamlint report", args);
  // Text shows none of it: a thousand ranks' JSON costs seconds to build.
  if (o.out.format != Format::Text) o.out.runProperties["ranks"] = ranksJson(views, align, false);
  o.out.rules = hooks.rules;
  o.out.summary = !o.quiet;
  std::ostringstream text;
  writeFindings(text, all, o.out);
  if (o.out.format == Format::Text && !o.quiet) writeRanksText(text, views, align);
  if (!emitReport(text.str(), o)) return 2;
  addCountLine(o, all);
  if (!emitSummary(o)) return 2;
  return exitStatus(o, all);
}

}  // namespace

static int reportLogs(const std::vector<std::string>& args, const ReportHooks& hooks) {
  Options o;
  if (int rc = parseArgs(args, o)) return rc == 1 ? 0 : 2;
  std::vector<std::string> files;
  std::string error;
  if (!o.summaries.empty()) return mergeSummaries(o, args, hooks);
  if (!listLogs(o.logs, files, error)) { std::cerr << "streamlint report: " << error << "\n"; return 2; }

  std::vector<ProcessLog> logs;
  std::vector<LogHealth> health;
  if (!readLogs(files, logs, health, o.out, o.summaryLines)) return 2;

  // Static findings first: a bad PATH or SARIF file is a usage error before any long analysis.
  std::vector<Finding> statics;
  for (const auto& s : o.sarifs)
    if (!readSarifFindings(s, statics, error)) { std::cerr << "streamlint report: " << error << "\n"; return 2; }
  if (!o.sources.empty()) {
    if (!hooks.analyse) { std::cerr << "streamlint report: this build cannot analyse sources; use --static\n"; return 2; }
    if (!hooks.analyse(o.sources, statics, error)) { std::cerr << "streamlint report: " << error << "\n"; return 2; }
  }

  RunData run;
  setSourceRoots(o.sources);
  Symbolizer sym;
  sym.searchIn(o.symbolDirs);
  // No call or GPU record is held as read: each log is read again, a record at a time, into its
  // timeline and SL901's sites (StreamedLog.h). What grows with a log's length is its timeline.
  HostBlockingSites sl901;
  for (auto& log : logs) {
    ProcessTimeline t;
    if (!streamTimeline(log, keptCall, sym, o.summary.empty() ? &sl901 : nullptr, t, error)) {
      std::cerr << "streamlint report: " << error << "\n";
      return 2;
    }
    run.timelines.push_back(std::move(t));
    relocateSources(run.timelines.back(), o.sources);
    nameStreams(run.timelines.back());
    run.overlaps.push_back(analyzeOverlap(run.timelines.back()));
    run.comms.push_back(analyzeCommunication(run.timelines.back()));
  }
  std::vector<RankView> views;
  for (size_t i = 0; i < run.timelines.size(); ++i) {
    views.push_back(rankView(run.timelines[i], run.comms[i]));
    // Per NCCL call, read by analyzeCommunication and rankView only: ~200 bytes each that would
    // otherwise stay until the report is written (4 % of a DDP log's calls are NCCL calls).
    run.timelines[i].collectives.clear();
    run.comms[i].collectives.clear();
  }
  if (!o.summary.empty()) return writeSummary(o, views);
  RankAlignment align = alignRanks(views);
  std::vector<Finding> measured = sl901.findings(run.timelines, o.hostBlocking);
  for (auto& f : measured) f.path = localSourcePath(f.path, o.sources);
  for (auto&& batch : {sideStreamNoOverlap(run, o.rules), workOffRegionStream(run),
                       legacyStreamSerialization(run, o.rules), exposedCommunication(views, align, o.rules)})
    measured.insert(measured.end(), batch.begin(), batch.end());
  RaceCheckSummary races;
  for (auto& f : streamRaces(logs, run.timelines, races)) measured.push_back(std::move(f));
  writeRaceSummary(o.summaryLines, races, o.out);
  pairWithRun(statics, run, measured);
  mergeConfirmed(statics, measured);  // one entry per line: SL401 "confirmed at runtime (SL903)"

  std::vector<Finding> all = measured;
  all.insert(all.end(), statics.begin(), statics.end());
  applySeverities(all, hooks.rules);
  foldSetUp(all, false);  // set-up sites are notes; JSON and SARIF keep one result per site
  rankByCost(all);
  // Text, the page and annotations: the set-up sites as one note entry after the per-step costs.
  std::vector<Finding> shown = all;
  foldSetUp(shown, true);
  rankByCost(shown);
  const bool folded = o.out.format == Format::Text || o.out.format == Format::Concise || o.out.format == Format::Github;

  o.out.toolCommand = commandLine("streamlint report", args);
  o.out.runProperties = overlapJson(run);
  if (o.out.format != Format::Text) o.out.runProperties["ranks"] = ranksJson(views, align, true);
  o.out.rules = hooks.rules;
  o.out.docsUrl = hooks.docsUrl;
  o.out.summary = !o.quiet;
  const bool tables = o.out.format == Format::Text && !o.quiet;  // -q: findings only
  std::ostringstream text;
  if (tables) writeCoverageText(text, run.timelines);
  writeFindings(text, folded ? shown : all, o.out);
  if (tables) writeOverlapText(text, run);
  if (tables) writeRanksText(text, views, align);
  if (!emitReport(text.str(), o)) return 2;
  addCountLine(o, folded || !findingsWanted(o) ? shown : all);  // the entries printed or on the page

  if (!o.trace.empty()) {
    std::ostringstream f;
    writePerfettoTrace(f, run.timelines, shown);
    if (!writeUserFile(o.trace, f.str(), "trace")) return 2;
    o.summaryLines.push_back("streamlint report: wrote " + o.trace + " (open it in ui.perfetto.dev)");
  }
  if (!o.html.empty()) {
    HtmlReportInput in;
    in.title = "streamlint report: " + o.logs;
    in.timelines = std::move(run.timelines);
    in.overlaps = std::move(run.overlaps);
    in.health = std::move(health);
    in.findings = shown;
    in.ranks = views;
    in.align = align;
    std::ostringstream f;
    writeHtmlReport(f, in);
    if (!writeUserFile(o.html, f.str(), "HTML report")) return 2;
    o.summaryLines.push_back("streamlint report: wrote " + o.html);
  }
  if (!emitSummary(o)) return 2;
  return exitStatus(o, all);
}

// A long log's timeline that cannot be written to or read from its temporary files (a full or
// unwritable $TMPDIR) is an input error, not a crash.
int reportMain(const std::vector<std::string>& args, const ReportHooks& hooks) {
  try {
    return reportLogs(args, hooks);
  } catch (const SpillError& e) {
    std::cerr << "streamlint report: " << e.what() << "\n";
    return 2;
  }
}

namespace {
void applySeverities(std::vector<Finding>& findings, const std::vector<RuleInfo>* rules) {
  if (!rules) return;
  for (auto& f : findings)
    for (const auto& r : *rules)
      if (r.id == f.ruleId && r.runtime) f.severity = r.severity;
}
}  // namespace

}  // namespace sl::runtime
