#include "runtime/Timeline.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "runtime/CallSite.h"
#include "runtime/Overlap.h"

namespace sl::runtime {

namespace {

using slog::ApiClass;

bool blocksHost(ApiClass c) {
  return c == ApiClass::Sync || c == ApiClass::Alloc || c == ApiClass::Free ||
         c == ApiClass::Copy || c == ApiClass::Set || c == ApiClass::StreamLife ||
         c == ApiClass::EventLife;
}

// CUPTI timestamps -> CLOCK_MONOTONIC. The recorder writes a (cupti, mono) pair when CUPTI starts
// and when it flushes; two pairs give drift as well as offset.
struct ClockMap {
  double scale = 1, offset = 0;
  bool valid = false;
  explicit ClockMap(const std::vector<slog::ClockRecord>& clocks) {
    if (clocks.empty()) return;
    const auto& a = clocks.front();
    const auto& b = clocks.back();
    valid = true;
    if (b.cuptiNs > a.cuptiNs + 1000000 && b.monoNs > a.monoNs)
      scale = double(b.monoNs - a.monoNs) / double(b.cuptiNs - a.cuptiNs);
    offset = double(a.monoNs) - scale * double(a.cuptiNs);
  }
  uint64_t toMono(uint64_t cupti) const { return uint64_t(scale * double(cupti) + offset); }
};

std::string opName(const ProcessLog& log, const slog::ActivityRecord& a) {
  if (a.kind == slog::ActivityKind::Kernel) {
    auto it = log.strings.find(a.nameId);
    return it != log.strings.end() ? it->second : "kernel";
  }
  if (a.kind == slog::ActivityKind::Memset) return "memset";
  switch (a.copyKind) {
    case 1: return "copy HtoD";
    case 2: return "copy DtoH";
    case 8: return "copy DtoD";
    case 10: return "copy PtoP";
    default: return "copy";
  }
}

int internLoc(ProcessTimeline& t, std::map<std::pair<std::string, uint32_t>, int>& index,
              const CallSite& s) {
  auto [it, fresh] = index.emplace(std::make_pair(s.path, s.line), int(t.locations.size()));
  if (fresh) t.locations.push_back(SourceLoc{s.path, s.line, s.function, s.python});
  return it->second;
}

}  // namespace

std::string StreamInfo::label() const {
  std::string s = legacyDefault ? "default stream" : "stream";
  return s + " " + std::to_string(id) + (device ? " (GPU " + std::to_string(device) + ")" : "");
}

const StreamInfo* ProcessTimeline::stream(uint32_t device, uint32_t id) const {
  for (const auto& s : streams)
    if (s.device == device && s.id == id) return &s;
  return nullptr;
}

ProcessTimeline buildTimeline(const ProcessLog& log, Symbolizer& sym) {
  ProcessTimeline t;
  t.logPath = log.path;
  t.host = log.header.host;
  t.exe = log.header.exe;
  t.pid = log.header.pid;
  t.rank = log.header.rank;

  // Calls, in the order they were made (the log interleaves threads' chunks).
  std::vector<const ApiCall*> calls;
  calls.reserve(log.calls.size());
  for (const auto& c : log.calls) calls.push_back(&c);
  std::stable_sort(calls.begin(), calls.end(),
                   [](const ApiCall* a, const ApiCall* b) { return a->rec.tEnter < b->rec.tEnter; });
  for (const ApiCall* c : calls) queueCallSite(log, *c, sym);
  sym.run();

  std::map<std::pair<std::string, uint32_t>, int> locIndex;
  std::unordered_map<uint64_t, int> callByCorr;
  std::set<uint32_t> pythonThreads;
  for (const ApiCall* c : calls) {
    HostCall h;
    h.tid = c->tid;
    h.api = c->rec.api;
    h.enterNs = c->rec.tEnter;
    h.exitNs = c->rec.tExit;
    h.stream = c->rec.stream;
    h.a0 = c->rec.a0;
    h.a2 = c->rec.a2;
    h.ret = c->rec.ret;
    h.blocking = blocksHost(slog::apiClass(c->rec.api));
    CallSite site = resolveCallSite(log, *c, sym);
    if (site.path != "<unknown>") h.loc = internLoc(t, locIndex, site);
    if (site.python) pythonThreads.insert(c->tid);
    if (c->rec.corr) callByCorr[c->rec.corr] = int(t.calls.size());
    t.calls.push_back(h);
  }
  t.pythonThreads.assign(pythonThreads.begin(), pythonThreads.end());

  // Work queued by threads that run no Python (autograd's device threads) belongs to the Python
  // line that set it off: the last line a Python thread issued a CUDA call from.
  int lastPythonLoc = -1;
  for (auto& h : t.calls) {
    bool fromPython = pythonThreads.count(h.tid) && h.loc >= 0 && t.locations[h.loc].python;
    if (fromPython) lastPythonLoc = h.loc;
    else if (!pythonThreads.count(h.tid)) h.attributedLoc = lastPythonLoc;
  }

  // GPU work, on the host clock.
  ClockMap clock(log.clocks);
  t.gpuTiming = clock.valid && !log.activities.empty();
  if (t.gpuTiming) {
    t.ops.reserve(log.activities.size());
    for (const auto& a : log.activities) {
      GpuOp op;
      op.kind = a.kind;
      op.copyKind = a.copyKind;
      op.device = a.deviceId;
      op.stream = a.streamId;
      op.startNs = clock.toMono(a.start);
      op.endNs = std::max(op.startNs, clock.toMono(a.end));
      op.bytes = a.bytes;
      op.name = opName(log, a);
      if (auto it = callByCorr.find(a.externalId); a.externalId && it != callByCorr.end())
        op.call = it->second;
      t.ops.push_back(std::move(op));
    }
    std::stable_sort(t.ops.begin(), t.ops.end(),
                     [](const GpuOp& a, const GpuOp& b) { return a.startNs < b.startNs; });
  }

  // Streams: CUPTI ids, tied to the handles the program passed through the launching calls.
  std::map<std::pair<uint32_t, uint32_t>, StreamInfo> streams;
  for (const auto& op : t.ops) {
    auto& s = streams[{op.device, op.stream}];
    if (!s.kernels && !s.copies && !s.sets) { s.device = op.device; s.id = op.stream; s.firstNs = op.startNs; }
    s.lastNs = std::max(s.lastNs, op.endNs);
    (op.kind == slog::ActivityKind::Kernel ? s.kernels
     : op.kind == slog::ActivityKind::Memcpy ? s.copies : s.sets)++;
    if (op.call >= 0 && !s.handleKnown) {
      s.handle = t.calls[op.call].stream;
      s.handleKnown = true;
    }
  }
  for (auto& [key, s] : streams) {
    // 0 = the legacy default stream; 1 = cudaStreamLegacy. 2 (cudaStreamPerThread) is not legacy.
    s.legacyDefault = s.handleKnown && (s.handle == 0 || s.handle == 1);
    s.busyNs = length(busyIntervals(t, s.device, s.id));
    t.streams.push_back(s);
  }

  t.beginNs = UINT64_MAX;
  for (const auto& h : t.calls) { t.beginNs = std::min(t.beginNs, h.enterNs); t.endNs = std::max(t.endNs, h.exitNs); }
  for (const auto& op : t.ops) { t.beginNs = std::min(t.beginNs, op.startNs); t.endNs = std::max(t.endNs, op.endNs); }
  if (t.beginNs == UINT64_MAX) t.beginNs = 0;
  return t;
}

}  // namespace sl::runtime
