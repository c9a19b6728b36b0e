#include "runtime/PerfettoTrace.h"

#include "runtime/Communication.h"

#include <optional>
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "runtime/KernelName.h"
#include "runtime/Pairing.h"

namespace sl::runtime {

namespace {

// A JSON string literal; invalid UTF-8 from a log (kernel names are the program's bytes) is
// replaced rather than thrown on.
std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Microseconds with nanosecond decimals, written from integers: exact, and no 1e+06 notation.
std::string micros(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
  return buf;
}

std::string locText(const ProcessTimeline& t, int loc) {
  if (loc < 0 || size_t(loc) >= t.locations.size()) return "";
  const SourceLoc& l = t.locations[size_t(loc)];
  return l.line ? l.path + ":" + std::to_string(l.line) : l.path;
}

const char* opCategory(slog::ActivityKind k) {
  switch (k) {
    case slog::ActivityKind::Kernel: return "kernel";
    case slog::ActivityKind::Memcpy: return "memcpy";
    case slog::ActivityKind::Memset: return "memset";
  }
  return "gpu";
}

const char* copyKindName(uint8_t k) {
  switch (k) {
    case 1: return "HtoD";
    case 2: return "DtoH";
    case 8: return "DtoD";
    case 10: return "PtoP";
  }
  return nullptr;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

class TraceWriter {
 public:
  TraceWriter(std::ostream& out, uint64_t baseNs) : out_(out), base_(baseNs) {}

  void begin() { out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"; }
  void end() { out_ << "\n]}\n"; }

  void processName(int pid, const std::string& name, int sortIndex) {
    event("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(pid) +
          ",\"tid\":0,\"args\":{\"name\":" + quoted(name) + "}}");
    event("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + std::to_string(pid) +
          ",\"tid\":0,\"args\":{\"sort_index\":" + std::to_string(sortIndex) + "}}");
  }
  void threadName(int pid, uint64_t tid, const std::string& name, uint64_t sortIndex) {
    event("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(pid) +
          ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"name\":" + quoted(name) + "}}");
    event("{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" + std::to_string(pid) +
          ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"sort_index\":" +
          std::to_string(sortIndex) + "}}");
  }
  // A complete event; `args` is a JSON object's text.
  void slice(int pid, uint64_t tid, const std::string& name, const char* cat, uint64_t startNs,
             uint64_t endNs, const std::string& args) {
    event("{\"ph\":\"X\",\"name\":" + quoted(name) + ",\"cat\":\"" + cat + "\",\"pid\":" +
          std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + ts(startNs) +
          ",\"dur\":" + micros(endNs > startNs ? endNs - startNs : 0) + ",\"args\":" + args + "}");
  }
  // An instant event on a thread's track (a finding).
  void instant(int pid, uint64_t tid, const std::string& name, uint64_t ns, const std::string& args) {
    event("{\"ph\":\"i\",\"s\":\"t\",\"name\":" + quoted(name) + ",\"cat\":\"finding\",\"pid\":" +
          std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + ts(ns) + ",\"args\":" + args + "}");
  }
  // One end of a launch → GPU work arrow; "bp":"e" binds it to the slice enclosing `ns`.
  void flow(char ph, uint64_t id, int pid, uint64_t tid, uint64_t ns) {
    event(std::string("{\"ph\":\"") + ph + "\",\"name\":\"launch\",\"cat\":\"launch\",\"id\":" +
          std::to_string(id) + ",\"pid\":" + std::to_string(pid) + ",\"tid\":" +
          std::to_string(tid) + ",\"ts\":" + ts(ns) + ",\"bp\":\"e\"}");
  }

 private:
  std::string ts(uint64_t ns) const { return micros(ns > base_ ? ns - base_ : 0); }
  void event(const std::string& e) {
    if (!first_) out_ << ",\n";
    first_ = false;
    out_ << e;
  }
  std::ostream& out_;
  uint64_t base_;
  bool first_ = true;
};

const char* reasonName(slog::WindowReason r) {
  switch (r) {
    case slog::WindowReason::Schedule: return "sampling schedule";
    case slog::WindowReason::Program: return "streamlint_recording()";
    case slog::WindowReason::Yield: return "a profiler took CUPTI";
    case slog::WindowReason::Exit: return "process exit";
  }
  return "?";
}

// Sampled GPU timing: the windows as slices on a track of their own (tid 0 is no host thread), so
// that gaps in the GPU tracks between them read as "not timed", not as an idle GPU.
void writeWindows(TraceWriter& w, int hostPid, const ProcessTimeline& t) {
  if (!t.sampled) return;
  w.threadName(hostPid, 0, "GPU timing windows (sampled)", 0);
  for (const auto& win : t.windows) {
    nlohmann::json args = {{"openedBy", reasonName(win.openedBy)},
                           {"closedBy", win.closed ? reasonName(win.closedBy) : "end of the log"}};
    w.slice(hostPid, 0, "GPU timed", "window", win.beginNs, win.endNs, args.dump());
  }
}

// Ranks first: the trace's process list sorts by name where sort indices tie, and one rank's
// host and GPU processes read as one group ("rank 1 pid 88", "GPU 0 (rank 1 pid 88)").
// Each finding's first call in this process (by its line: own or attributed, as every output
// places calls), marked on that call's thread; a folded set-up note marks each of its sites.
void writeFindingMarks(TraceWriter& w, int hostPid, const ProcessTimeline& t, const std::vector<Finding>& findings) {
  struct First { uint64_t ns = UINT64_MAX; uint32_t tid = 0; };
  std::vector<First> first(t.locations.size());
  for (const auto& c : t.calls) {
    int loc = t.reportLoc(c);
    if (loc < 0 || size_t(loc) >= first.size() || first[size_t(loc)].ns <= c.enterNs) continue;
    first[size_t(loc)] = {c.enterNs, c.tid};
  }
  auto mark = [&](const std::string& rule, const std::string& severity, const std::string& path, uint32_t line,
                  const std::string& message) {
    if (path.empty() || !line) return;
    First at;
    for (size_t i = 0; i < t.locations.size(); ++i)
      if (t.locations[i].line == line && first[i].ns < at.ns && samePath(t.locations[i].path, path)) at = first[i];
    if (at.ns == UINT64_MAX) return;
    std::string where = path + ":" + std::to_string(line);
    nlohmann::json args = {{"rule", rule}, {"severity", severity}, {"source", where}, {"message", message}};
    w.instant(hostPid, at.tid, rule + " " + where.substr(where.find_last_of('/') + 1), at.ns,
              args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  };
  for (const auto& f : findings) {
    if (f.properties.contains("sites") && f.properties["sites"].is_array()) {
      for (const auto& s : f.properties["sites"])
        mark(f.ruleId, severityName(f.severity), s.value("path", std::string()), s.value("line", 0u),
             s.value("message", std::string()));
      continue;
    }
    mark(f.ruleId, severityName(f.severity), f.path, f.loc.line, f.message);
  }
}

std::string processSuffix(const ProcessTimeline& t, bool withHost) {
  std::string s = t.rank >= 0 ? "rank " + std::to_string(t.rank) + " pid " : "pid ";
  s += std::to_string(t.pid);
  if (withHost && !t.host.empty()) s += " on " + t.host;
  return s;
}

}  // namespace

void writePerfettoTrace(std::ostream& out, const std::vector<ProcessTimeline>& timelines,
                        const std::vector<Finding>& findings) {
  uint64_t base = UINT64_MAX;
  std::set<std::string> hosts;
  for (const auto& t : timelines) {
    hosts.insert(t.host);
    if (t.beginNs) base = std::min(base, t.beginNs);
    if (!t.calls.empty()) base = std::min(base, t.calls.front().enterNs);
    if (!t.ops.empty()) base = std::min(base, t.ops.front().startNs);
  }
  if (base == UINT64_MAX) base = 0;
  const bool withHost = hosts.size() > 1;

  TraceWriter w(out, base);
  w.begin();
  int nextPid = 1;
  uint64_t nextFlow = 1;
  // A track group per rank: its processes get consecutive sort indices, ranks in order.
  std::vector<size_t> order(timelines.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return uint32_t(timelines[a].rank) < uint32_t(timelines[b].rank);  // unknown (-1) last
  });
  for (size_t index : order) {
    const ProcessTimeline& t = timelines[index];
    // Host side: one trace process per OS process, one track per thread.
    const int hostPid = nextPid++;
    std::string exe = t.exe.substr(t.exe.find_last_of('/') + 1);
    w.processName(hostPid, "host " + processSuffix(t, withHost) + (exe.empty() ? "" : ": " + exe),
                  hostPid);
    std::set<uint32_t> threads;
    for (const auto& c : t.calls) threads.insert(c.tid);
    std::set<uint32_t> python(t.pythonThreads.begin(), t.pythonThreads.end());
    for (uint32_t tid : threads)
      w.threadName(hostPid, tid, "thread " + std::to_string(tid) + (python.count(tid) ? " (Python)" : ""),
                   python.count(tid) ? 0 : tid);
    writeWindows(w, hostPid, t);
    writeFindingMarks(w, hostPid, t, findings);

    std::unordered_map<uint64_t, const StreamInfo*> byHandle;
    for (const auto& s : t.streams)
      if (s.handleKnown) byHandle.emplace(s.handle, &s);
    auto streamText = [&](uint64_t handle) {
      auto it = byHandle.find(handle);
      if (it != byHandle.end()) return it->second->label();
      return handle == 0 ? std::string("legacy default stream") : "stream " + hex(handle);
    };
    for (const auto& c : t.calls) {
      nlohmann::json args = {{"api", slog::apiName(c.api)}, {"stream", streamText(c.stream)}};
      std::string src = locText(t, t.reportLoc(c));
      if (!src.empty()) args["source"] = src;
      if (c.attributedLoc >= 0) args["attributed"] = true;  // the user line that set off a thread without user code
      if (c.ret != 0) args["ret"] = c.ret;
      if (c.blocking) args["blocking"] = true;
      w.slice(hostPid, c.tid, slog::apiName(c.api), c.blocking ? "blocking" : "api", c.enterNs,
              c.exitNs, args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }

    // GPU side: one trace process per device, one track per stream.
    std::map<uint32_t, int> devicePid;
    for (const auto& s : t.streams) devicePid.emplace(s.device, 0);
    for (const auto& op : t.ops) devicePid.emplace(op.device, 0);
    for (auto& [device, pid] : devicePid) {
      pid = nextPid++;
      w.processName(pid, "GPU " + std::to_string(device) + " (" + processSuffix(t, withHost) + ")", pid);
    }
    std::unordered_map<std::string, std::string> readable;  // kernel names repeat: demangle once
    std::set<std::pair<uint32_t, uint32_t>> named, nccl;
    for (const auto& op : t.ops)
      if (op.kind == slog::ActivityKind::Kernel && isNcclKernel(op.name)) nccl.insert({op.device, op.stream});
    for (const auto& s : t.streams) {
      w.threadName(devicePid[s.device], s.id, s.label() + (nccl.count({s.device, s.id}) ? " (NCCL)" : ""), s.id);
      named.insert({s.device, s.id});
    }
    for (const auto& op : t.ops) {
      if (named.insert({op.device, op.stream}).second)  // an op on a stream the timeline did not list
        w.threadName(devicePid[op.device], op.stream, "stream " + std::to_string(op.stream), op.stream);
      nlohmann::json args = nlohmann::json::object();
      if (op.bytes) args["bytes"] = op.bytes;
      if (const char* k = op.kind == slog::ActivityKind::Memcpy ? copyKindName(op.copyKind) : nullptr)
        args["copyKind"] = k;
      std::optional<HostCall> call;
      if (op.call >= 0 && size_t(op.call) < t.calls.size()) call = t.calls[size_t(op.call)];
      if (call) {
        args["launchedBy"] = slog::apiName(call->api);
        std::string src = locText(t, t.reportLoc(*call));
        if (!src.empty()) args["source"] = src;
      }
      auto r = readable.find(op.name);
      if (r == readable.end()) r = readable.emplace(op.name, readableKernelName(op.name)).first;
      if (r->second != op.name.str()) args["mangled"] = op.name.str();
      const int pid = devicePid[op.device];
      w.slice(pid, op.stream, r->second, opCategory(op.kind), op.startNs, op.endNs,
              args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      if (call) {
        // Both ends at the middle of their slices: "bp":"e" binds to the slice enclosing that
        // time, and a slice's own start may bind to the one before it.
        const uint64_t id = nextFlow++;
        w.flow('s', id, hostPid, call->tid, call->enterNs + call->blockedNs() / 2);
        w.flow('f', id, pid, op.stream, op.startNs + (op.endNs > op.startNs ? (op.endNs - op.startNs) / 2 : 0));
      }
    }
  }
  w.end();
}

}  // namespace sl::runtime
