#include "runtime/HtmlReport.h"

#include "runtime/EvidenceText.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "core/SourceFile.h"
#include "runtime/GpuCoverage.h"
#include "runtime/RuntimeRules.h"
#include "runtime/KernelName.h"

namespace sl::runtime {

// The page's stylesheet and script (HtmlReportAssets.cpp).
extern const char kHtmlReportCss[];
extern const char kHtmlReportJs[];

namespace {

// Bytes that are not UTF-8 become U+FFFD: the page is declared UTF-8 and kernel names are the
// program's bytes.
std::string validUtf8(std::string s) {
  for (size_t from = 0;;) {
    size_t bad = firstInvalidUtf8(std::string_view(s).substr(from));
    if (bad == std::string_view::npos) return s;
    s.replace(from + bad, 1, "\xEF\xBF\xBD");
    from += bad + 3;
  }
}

std::string esc(const std::string& raw) {
  std::string s = validUtf8(raw), out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// JSON that can sit inside <script type="application/json">: '<' cannot start "</script>" or
// "<!--", and '>' / '&' are escaped too so no HTML parser state is ever entered. They only
// occur inside JSON strings, where \u escapes mean the same characters.
std::string scriptSafeJson(const nlohmann::json& j) {
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), out;
  out.reserve(s.size() + s.size() / 16);
  for (char c : s) {
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  return out;
}

std::string duration(uint64_t ns) {
  char buf[32];
  if (ns >= 1000000000) std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  else if (ns >= 1000000) std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  else if (ns >= 1000) std::snprintf(buf, sizeof buf, "%.1f µs", ns / 1e3);
  else std::snprintf(buf, sizeof buf, "%" PRIu64 " ns", ns);
  return buf;
}

std::string percent(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f%%", share * 100);
  return buf;
}

std::string locText(const SourceLoc& l) {
  return l.line ? l.path + ":" + std::to_string(l.line) : l.path;
}

std::string processTitle(const ProcessTimeline& t) {
  std::string s = t.rank >= 0 ? "rank " + std::to_string(t.rank) + " · pid " : "pid ";
  s += std::to_string(t.pid);
  if (!t.host.empty()) s += " on " + t.host;
  std::string exe = t.exe.substr(t.exe.find_last_of('/') + 1);
  if (!exe.empty()) s += ": " + exe;
  return s;
}

// A finding names a file as the user wrote it (often relative); the recorder saw absolute
// paths. They are the same file when equal or when one ends with "/" + the other.
bool samePath(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const std::string& longer = a.size() > b.size() ? a : b;
  const std::string& shorter = a.size() > b.size() ? b : a;
  return !shorter.empty() && longer.size() > shorter.size() &&
         longer.compare(longer.size() - shorter.size(), shorter.size(), shorter) == 0 &&
         longer[longer.size() - shorter.size() - 1] == '/';
}

std::set<uint32_t> devicesOf(const ProcessTimeline& t) {
  std::set<uint32_t> d;
  for (const auto& s : t.streams) d.insert(s.device);
  for (const auto& op : t.ops) d.insert(op.device);
  return d;
}

uint64_t processBegin(const ProcessTimeline& t) {
  uint64_t b = t.beginNs ? t.beginNs : UINT64_MAX;
  if (!t.calls.empty()) b = std::min(b, t.calls.front().enterNs);
  if (!t.ops.empty()) b = std::min(b, t.ops.front().startNs);
  return b == UINT64_MAX ? 0 : b;
}

// ---- the page's data: columns of numbers, strings interned once per process ----

class StringTable {
 public:
  int id(const std::string& s) {
    auto [it, fresh] = ids_.emplace(s, int(list_.size()));
    if (fresh) list_.push_back(s);
    return it->second;
  }
  // Kernel names go in demangled; interned by the raw name, so each is demangled once.
  int kernel(const std::string& raw) {
    auto it = ids_.find(raw);
    if (it != ids_.end()) return it->second;
    ids_.emplace(raw, int(list_.size()));
    list_.push_back(readableKernelName(raw));
    return int(list_.size() - 1);
  }
  nlohmann::json json() const { return list_; }
 private:
  std::unordered_map<std::string, int> ids_;
  std::vector<std::string> list_;
};

int opKind(slog::ActivityKind k) {
  return k == slog::ActivityKind::Kernel ? 0 : k == slog::ActivityKind::Memcpy ? 1 : 2;
}

// The lines a finding stands for: its own, or each site of a folded set-up note.
std::vector<std::pair<std::string, uint32_t>> findingLines(const Finding& f) {
  std::vector<std::pair<std::string, uint32_t>> out;
  if (f.properties.contains("sites") && f.properties["sites"].is_array())
    for (const auto& site : f.properties["sites"]) out.push_back({site.value("path", std::string()), site.value("line", 0u)});
  else
    out.push_back({f.path, f.loc.line});
  return out;
}

// The location indices of t that a finding's lines stand for.
std::vector<size_t> findingLocs(const Finding& f, const ProcessTimeline& t) {
  std::vector<size_t> locs;
  for (const auto& [path, line] : findingLines(f)) {
    if (path.empty()) continue;
    for (size_t i = 0; i < t.locations.size(); ++i)
      if (t.locations[i].line == line && samePath(t.locations[i].path, path)) locs.push_back(i);
  }
  return locs;
}

// Per finding and process, the location indices the finding's line stands for.
nlohmann::json findingSites(const Finding& f, const std::vector<ProcessTimeline>& timelines) {
  nlohmann::json hits = nlohmann::json::array();
  for (size_t p = 0; p < timelines.size(); ++p)
    if (auto locs = findingLocs(f, timelines[p]); !locs.empty()) hits.push_back({p, locs});
  return hits;
}

// The findings as markers on a process's timeline (a strip above its lanes, as Nsight Systems
// shows its diagnostics): each at the first call of its line in this process.
nlohmann::json findingMarks(const ProcessTimeline& t, const std::vector<Finding>& findings, uint64_t begin) {
  std::vector<uint64_t> first(t.locations.size(), UINT64_MAX);
  for (const auto& c : t.calls)
    if (int loc = t.reportLoc(c); loc >= 0 && size_t(loc) < first.size())
      first[size_t(loc)] = std::min(first[size_t(loc)], c.enterNs);
  nlohmann::json mt = nlohmann::json::array(), mf = mt;
  for (size_t i = 0; i < findings.size(); ++i) {
    uint64_t at = UINT64_MAX;
    for (size_t loc : findingLocs(findings[i], t)) at = std::min(at, first[loc]);
    if (at == UINT64_MAX) continue;
    mt.push_back(at > begin ? at - begin : 0);
    mf.push_back(i);
  }
  return {{"t", mt}, {"f", mf}};
}

nlohmann::json processData(const ProcessTimeline& t, const HtmlReportInput& in, size_t& opsLeftOut,
                           size_t& callsLeftOut) {
  const uint64_t begin = processBegin(t);
  const bool manyDevices = devicesOf(t).size() > 1;
  StringTable names;
  nlohmann::json lanes = nlohmann::json::array();
  std::map<std::pair<uint32_t, uint32_t>, int> streamLane;
  std::unordered_map<uint64_t, std::string> handleLabel;
  for (const auto& s : t.streams) {
    streamLane[{s.device, s.id}] = int(lanes.size());
    std::string label = (manyDevices ? "GPU " + std::to_string(s.device) + " " : "") + s.label();
    lanes.push_back({{"label", label}, {"type", "stream"}});
    if (s.handleKnown) handleLabel.emplace(s.handle, s.label());
  }
  // Ops on streams the timeline does not list still get a lane.
  for (const auto& op : t.ops)
    if (streamLane.emplace(std::make_pair(op.device, op.stream), int(lanes.size())).second)
      lanes.push_back({{"label", "stream " + std::to_string(op.stream)}, {"type", "stream"}});

  nlohmann::json ot = nlohmann::json::array(), od = ot, ol = ot, ok = ot, on = ot, os = ot;
  const size_t nOps = std::min(t.ops.size(), in.maxOps);
  uint64_t end = t.endNs > begin ? t.endNs - begin : 0;
  for (size_t i = 0; i < nOps; ++i) {
    const GpuOp& op = t.ops[i];
    const uint64_t s = op.startNs > begin ? op.startNs - begin : 0;
    const uint64_t d = op.endNs > op.startNs ? op.endNs - op.startNs : 0;
    std::optional<HostCall> call;
    if (op.call >= 0 && size_t(op.call) < t.calls.size()) call = t.calls[size_t(op.call)];
    ot.push_back(s); od.push_back(d);
    ol.push_back(streamLane[{op.device, op.stream}]);
    ok.push_back(opKind(op.kind));
    on.push_back(names.kernel(op.name));
    os.push_back(call ? t.reportLoc(*call) : -1);
    end = std::max(end, s + d);
  }
  opsLeftOut = t.ops.size() - nOps;

  // Host lanes: the blocking calls, one lane per thread that made any.
  std::map<uint32_t, int> threadLane;
  std::set<uint32_t> python(t.pythonThreads.begin(), t.pythonThreads.end());
  size_t blocking = 0;
  for (const auto& c : t.calls) blocking += c.blocking;
  nlohmann::json ct = nlohmann::json::array(), cd = ct, cl = ct, cn = ct, cs = ct, cst = ct;
  size_t kept = 0;
  for (const auto& c : t.calls) {
    if (!c.blocking || kept == in.maxCalls) continue;
    ++kept;
    auto [it, fresh] = threadLane.emplace(c.tid, 0);
    if (fresh) {
      it->second = int(lanes.size());
      auto named = t.threads.find(c.tid);  // the recorder's thread records: "pt_autograd_0"
      std::string name = named != t.threads.end() && !named->second.name.empty() ? " " + named->second.name : "";
      lanes.push_back({{"label", "thread " + std::to_string(c.tid) + name + (python.count(c.tid) ? " (Python)" : "")},
                       {"type", "thread"}});
    }
    const uint64_t s = c.enterNs > begin ? c.enterNs - begin : 0;
    ct.push_back(s); cd.push_back(c.blockedNs()); cl.push_back(it->second);
    cn.push_back(names.id(slog::apiName(c.api)));
    cs.push_back(t.reportLoc(c));
    auto h = handleLabel.find(c.stream);
    cst.push_back(names.id(h != handleLabel.end() ? h->second
                           : c.stream == 0 ? std::string("legacy default stream")
                                           : "stream handle " + std::to_string(c.stream)));
    end = std::max(end, s + c.blockedNs());
  }
  callsLeftOut = blocking - kept;

  nlohmann::json sites = nlohmann::json::array();
  for (const auto& l : t.locations) sites.push_back(locText(l));
  nlohmann::json data = {{"title", processTitle(t)}, {"end", end}, {"lanes", lanes}, {"names", names.json()},
          {"sites", sites},
          {"ops", {{"t", ot}, {"d", od}, {"l", ol}, {"k", ok}, {"n", on}, {"s", os}}},
          {"calls", {{"t", ct}, {"d", cd}, {"l", cl}, {"n", cn}, {"s", cs}, {"st", cst}}},
          {"marks", findingMarks(t, in.findings, begin)}};
  // Sampled GPU timing: the windows, so that the stream lanes can show where nothing was timed
  // (an empty stretch there is not an idle GPU).
  if (t.sampled) {
    nlohmann::json wt = nlohmann::json::array(), wd = wt;
    for (const auto& w : t.windows) {
      const uint64_t s = w.beginNs > begin ? w.beginNs - begin : 0;
      wt.push_back(s);
      wd.push_back(w.endNs > begin + s ? w.endNs - begin - s : 0);
    }
    data["windows"] = {{"t", wt}, {"d", wd}};
  }
  return data;
}


// ---- markup ----

void writeSummary(std::ostream& o, const HtmlReportInput& in) {
  size_t devices = 0, streams = 0, calls = 0, ops = 0;
  uint64_t dropped = 0, droppedThreads = 0, droppedActivities = 0;
  Coverage timed;
  for (const auto& t : in.timelines) {
    devices += devicesOf(t).size();
    streams += t.streams.size();
    calls += t.calls.size();
    ops += t.ops.size();
    timed.add(t);
  }
  // The text report's count (every recorded call, polls too) where the log is known; the
  // timelines hold the calls they draw (successful polls are only counted).
  for (size_t p = 0; p < in.health.size() && p < in.timelines.size(); ++p)
    calls += in.health[p].apiRecords > in.timelines[p].calls.size() ? in.health[p].apiRecords - in.timelines[p].calls.size() : 0;
  for (const auto& h : in.health) {
    dropped += h.droppedRecords;
    droppedThreads += h.droppedThreads;
    droppedActivities += h.droppedActivities;
  }
  auto item = [&](const char* label, const std::string& value, bool warn = false) {
    o << "<div class=\"stat" << (warn ? " warn" : "") << "\"><span class=\"v\">" << esc(value)
      << "</span><span class=\"k\">" << label << "</span></div>";
  };
  o << "<section class=\"summary\">";
  item("processes", std::to_string(in.timelines.size()));
  item("GPUs", std::to_string(devices));
  item("streams", std::to_string(streams));
  item("CUDA calls", std::to_string(calls));
  item("GPU ops", std::to_string(ops));
  if (timed.sampled())
    item("of the run GPU-timed (sampled)", percent(timed.runNs ? double(timed.timedNs) / double(timed.runNs) : 0), true);
  item("findings", std::to_string(in.findings.size()));
  if (dropped) item("records dropped", std::to_string(dropped), true);
  if (droppedThreads) item("threads unrecorded", std::to_string(droppedThreads), true);
  if (droppedActivities) item("GPU records dropped by CUPTI", std::to_string(droppedActivities), true);
  o << "</section>\n";
}

void writeProcessNotes(std::ostream& o, const ProcessTimeline& t, const LogHealth* h,
                       size_t opsLeftOut, size_t callsLeftOut, const HtmlReportInput& in) {
  std::vector<std::string> notes;
  if (!t.gpuTiming) notes.push_back("No GPU timing in this log (CUPTI was off, unavailable or taken by a profiler): only host calls are shown.");
  if (t.sampled)
    notes.push_back(coverageSummary(t) + ". The stream lanes and the overlap show the GPU work of "
                    "the timed windows only; shaded stretches were not timed.");
  if (opsLeftOut)
    notes.push_back("Only the first " + std::to_string(in.maxOps) + " of " + std::to_string(t.ops.size()) +
                    " GPU ops are drawn (" + std::to_string(opsLeftOut) + " left out to keep this page small; the Perfetto trace has them all).");
  if (callsLeftOut)
    notes.push_back("Only the first " + std::to_string(in.maxCalls) + " blocking host calls are drawn (" +
                    std::to_string(callsLeftOut) + " left out).");
  if (h) {
    if (h->droppedRecords) notes.push_back(std::to_string(h->droppedRecords) + " records were dropped while recording (ring full or memory cap).");
    if (h->droppedThreads) notes.push_back(std::to_string(h->droppedThreads) + " threads were not recorded (memory cap).");
    if (h->droppedActivities) notes.push_back(std::to_string(h->droppedActivities) + " GPU activity records were dropped by CUPTI.");
    if (h->truncated) notes.push_back("The log has no trailer: the process died before its last flush, so its end is missing.");
    for (const auto& p : h->problems) notes.push_back("Log damage: " + p);
  }
  for (const auto& n : notes) o << "<p class=\"note\">" << esc(n) << "</p>\n";
}

// The measured evidence in sentences with units (EvidenceText.h).
void writeEvidence(std::ostream& o, const nlohmann::json& props) {
  std::vector<std::string> sentences = evidenceSentences(props);
  if (sentences.empty()) return;
  o << "<ul class=\"evidence\">";
  for (const auto& s : sentences) o << "<li>" << esc(s) << "</li>";
  o << "</ul>";
}

void writeSourceExcerpt(std::ostream& o, const Finding& f, const std::string& root) {
  std::string path = f.path;
  if (!root.empty() && !path.empty() && path[0] != '/') path = root + "/" + path;
  std::string error;
  std::optional<SourceFile> src;
  if (!f.path.empty() && f.loc.line) src = SourceFile::load(path, error);
  if (!src || f.loc.line > src->lineCount()) {
    o << "<div class=\"nosrc\">source not available</div>";
    return;
  }
  const uint32_t first = f.loc.line > 3 ? f.loc.line - 3 : 1;
  const uint32_t last = std::min<uint32_t>(uint32_t(src->lineCount()), f.loc.line + 3);
  o << "<pre class=\"src\">";
  for (uint32_t l = first; l <= last; ++l)
    o << "<span class=\"line" << (l == f.loc.line ? " hit" : "") << "\"><span class=\"ln\">" << l
      << "</span>" << esc(std::string(src->line(l))) << "</span>";
  o << "</pre>";
}

// One row per rank, in rank order: what docs/ranks.md describes; each rank's timeline follows in
// its own section.
void writeRanks(std::ostream& o, const HtmlReportInput& in) {
  bool nccl = false;
  for (const auto& v : in.ranks) nccl |= v.ncclCalls > 0;
  if (in.ranks.size() < 2 && !nccl) return;
  o << "<section class=\"ranks\"><h2>Ranks</h2>\n<table class=\"overlap\"><thead><tr><th>rank</th><th>process</th>"
       "<th>compute</th><th>communication</th><th>exposed</th><th>NCCL calls</th><th>waited</th>"
       "<th>arrived last</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < in.ranks.size(); ++i) {
    const RankView& v = in.ranks[i];
    const RankWaits& w = in.align.ranks.size() > i ? in.align.ranks[i] : RankWaits{};
    auto time = [&](uint64_t ns) { return v.gpuTiming ? duration(ns) : std::string("-"); };
    o << "<tr><td>" << (v.rank >= 0 ? std::to_string(v.rank) : "?") << "</td><td>"
      << esc("pid " + std::to_string(v.pid) + " on " + v.host) << "</td><td>" << time(v.computeNs) << "</td><td>"
      << time(v.commNs) << "</td><td>" << time(v.exposedNs) << "</td><td>" << v.ncclCalls << "</td><td>"
      << duration(w.waitedNs) << "</td><td>" << w.lastCount << "</td></tr>\n";
  }
  o << "</tbody></table>\n";
  std::vector<std::string> notes = in.align.notes;
  for (const auto& v : in.ranks)
    for (const auto& n : v.notes) notes.push_back("rank " + std::to_string(v.rank) + ": " + n);
  for (const auto& n : notes) o << "<div class=\"meta\">" << esc(n) << "</div>\n";
  o << "</section>\n";
}

void writeFindings(std::ostream& o, const HtmlReportInput& in) {
  o << "<section class=\"findings\"><h2>Findings</h2>\n";
  if (in.findings.empty()) {
    o << "<p>No findings.</p></section>\n";
    return;
  }
  o << "<p class=\"hint\">Click a finding to highlight its calls and GPU work on the timelines.</p>\n"
       "<table id=\"findings\"><thead><tr><th>#</th><th>rule</th><th>finding</th><th>measured</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < in.findings.size(); ++i) {
    const Finding& f = in.findings[i];
    std::string where = f.path.empty() ? "(no location)"
                        : f.loc.line ? f.path + ":" + std::to_string(f.loc.line) : f.path;
    o << "<tr class=\"finding sev-" << severityName(f.severity) << "\" data-finding=\"" << i
      << "\" tabindex=\"0\"><td>" << i + 1 << "</td><td class=\"rule\">" << esc(f.ruleId)
      << "<div class=\"sev\">" << severityName(f.severity) << "</div></td><td><div class=\"where\">"
      << esc(where) << "</div><div class=\"msg\">" << esc(f.message) << "</div>";
    for (const auto& n : f.notes)
      o << "<div class=\"related\">" << esc(n.path + (n.loc.line ? ":" + std::to_string(n.loc.line) : "")
                                            + ": " + n.message) << "</div>";
    writeSourceExcerpt(o, f, in.sourceRoot);
    o << "<div class=\"status\"></div></td><td class=\"measured\">";
    writeEvidence(o, f.properties);
    o << "</td></tr>\n";
  }
  o << "</tbody></table></section>\n";
}

void writeOverlapTable(std::ostream& o, const ProcessTimeline& t, const OverlapSummary& ov) {
  if (ov.streams.empty()) return;
  auto label = [&](uint32_t device, uint32_t id) {
    const StreamInfo* s = t.stream(device, id);
    return s ? s->label() : "stream " + std::to_string(id);
  };
  o << "<h3>Stream overlap</h3><table class=\"overlap\"><thead><tr><th>GPU</th><th>stream</th>"
       "<th>busy</th><th>overlapped by other streams</th><th>share</th></tr></thead><tbody>\n";
  for (const auto& s : ov.streams)
    o << "<tr><td>" << s.device << "</td><td>" << esc(label(s.device, s.stream)) << "</td><td>"
      << duration(s.busyNs) << "</td><td>" << duration(s.overlappedNs) << "</td><td>"
      << percent(s.share()) << "</td></tr>\n";
  o << "</tbody></table>\n";
  if (ov.pairs.empty()) return;
  o << "<table class=\"overlap\"><thead><tr><th>GPU</th><th>stream A</th><th>stream B</th>"
       "<th>both busy</th><th>share of A</th><th>share of B</th></tr></thead><tbody>\n";
  for (const auto& p : ov.pairs)
    o << "<tr><td>" << p.device << "</td><td>" << esc(label(p.device, p.a)) << "</td><td>"
      << esc(label(p.device, p.b)) << "</td><td>" << duration(p.overlapNs) << "</td><td>"
      << percent(p.shareOfA) << "</td><td>" << percent(p.shareOfB) << "</td></tr>\n";
  o << "</tbody></table>\n";
}

}  // namespace

LogHealth logHealth(const ProcessLog& log) {
  LogHealth h;
  h.apiRecords = log.apiRecords;
  if (log.trailer) {
    h.droppedRecords = log.trailer->dropped;
    h.droppedThreads = log.trailer->droppedThreads;
    h.droppedActivities = log.trailer->activityDropped;
  } else {
    h.truncated = true;
  }
  h.problems = log.problems;
  return h;
}

void writeHtmlReport(std::ostream& o, const HtmlReportInput& in) {
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       // Nothing may load from anywhere: the page must work offline and leak nothing.
       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
       "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
    << esc(in.title) << "</title>\n<style>" << kHtmlReportCss << "</style></head>\n"
    << "<body data-rendered=\"pending\">\n<header><h1>" << esc(in.title) << "</h1></header>\n";
  // The run first (what the user came to see: the timeline), then what is wrong with it.
  writeSummary(o, in);
  writeRanks(o, in);

  nlohmann::json processes = nlohmann::json::array();
  for (size_t p = 0; p < in.timelines.size(); ++p) {
    const ProcessTimeline& t = in.timelines[p];
    size_t opsLeftOut = 0, callsLeftOut = 0;
    processes.push_back(processData(t, in, opsLeftOut, callsLeftOut));
    o << "<section class=\"process\"><h2>Process " << esc(processTitle(t)) << "</h2>\n";
    uint64_t recorded = std::max<uint64_t>(p < in.health.size() ? in.health[p].apiRecords : 0, t.calls.size());
    o << "<div class=\"meta\">" << esc(t.logPath) << " · " << recorded << " CUDA calls"
      << (recorded > t.calls.size() ? " (" + std::to_string(t.calls.size()) + " drawn; polls are counted, not drawn)" : "")
      << " · "
      << t.ops.size() << " GPU ops · " << duration(t.endNs > t.beginNs ? t.endNs - t.beginNs : 0)
      << "</div>\n";
    writeProcessNotes(o, t, p < in.health.size() ? &in.health[p] : nullptr, opsLeftOut, callsLeftOut, in);
    o << "<div class=\"timeline\" data-process=\"" << p << "\"></div>\n";
    if (p < in.overlaps.size()) writeOverlapTable(o, t, in.overlaps[p]);
    o << "</section>\n";
  }
  writeFindings(o, in);

  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : in.findings)
    findings.push_back({{"rule", f.ruleId}, {"severity", severityName(f.severity)},
                        {"where", f.path + (f.loc.line ? ":" + std::to_string(f.loc.line) : "")},
                        {"message", f.message}, {"hits", findingSites(f, in.timelines)}});
  nlohmann::json data = {{"processes", processes}, {"findings", findings}};
  o << "<div id=\"tooltip\" hidden></div>\n"
    << "<script type=\"application/json\" id=\"sl-data\">" << scriptSafeJson(data) << "</script>\n"
    << "<script>" << kHtmlReportJs << "</script>\n</body></html>\n";
}

}  // namespace sl::runtime
