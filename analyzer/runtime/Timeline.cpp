#include "runtime/Timeline.h"

#include <cstring>
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "runtime/CallSite.h"
#include "runtime/HostBlocking.h"
#include "runtime/Overlap.h"

namespace sl::runtime {

namespace {

using slog::ApiClass;


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
    if (scale < 0.99 || scale > 1.01) scale = 1;  // pairs that disagree (a profiler took CUPTI)
    offset = double(a.monoNs) - scale * double(a.cuptiNs);
  }
  uint64_t toMono(uint64_t cupti) const {
    // Clamped: a damaged clock pair must not make the conversion undefined behaviour.
    double v = scale * double(cupti) + offset;
    return v <= 0 ? 0 : v >= 1.8e19 ? UINT64_MAX : uint64_t(v);
  }
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

// GPU ops whose launching call CUPTI did not name (no external correlation record): CUPTI's
// correlation ids grow in API-call order over the process, and so do the recorded calls by enter
// time. Per kind (kernel <- launch, memcpy <- copy, memset <- set) walk both in order and pair each
// op with the next call of its kind, requiring the same kernel name when both sides know it and a
// start after the call began. A bounded look-ahead skips ops from APIs the recorder does not hook
// (cuBLAS's internal memsets) instead of pairing them with a later call.
void joinByOrder(const ProcessLog& log, ProcessTimeline& t, const std::vector<const ApiCall*>& calls,
                 std::vector<std::pair<uint32_t, size_t>>& unjoined) {
  constexpr size_t kLookAhead = 32;
  constexpr uint64_t kClockSlackNs = 50000;
  std::sort(unjoined.begin(), unjoined.end());
  auto kindOf = [](slog::ApiClass c) {
    switch (c) {
      case ApiClass::Launch: return 1;
      case ApiClass::Copy: case ApiClass::CopyAsync: return 2;
      case ApiClass::Set: case ApiClass::SetAsync: return 3;
      default: return 0;
    }
  };
  // Only calls begun in a timing window: with sampled timing, thousands of untimed launches
  // between two windows would otherwise use up the look-ahead.
  std::vector<size_t> queue[4];  // call indices per kind, in call order
  for (size_t i = 0; i < t.calls.size(); ++i)
    if (int k = kindOf(slog::apiClass(t.calls[i].api)); k && t.calls[i].ret == 0 && t.calls[i].gpuTimed)
      queue[k].push_back(i);
  size_t next[4] = {0, 0, 0, 0};
  auto name = [&](uint32_t id) -> const std::string* {
    auto it = log.strings.find(id);
    return id && it != log.strings.end() ? &it->second : nullptr;
  };
  for (const auto& [corr, opIndex] : unjoined) {
    GpuOp& op = t.ops[opIndex];
    int k = op.kind == slog::ActivityKind::Kernel ? 1 : op.kind == slog::ActivityKind::Memcpy ? 2 : 3;
    const std::string* opName = op.kind == slog::ActivityKind::Kernel ? &op.name.str() : nullptr;
    auto& q = queue[k];
    for (size_t j = next[k]; j < q.size() && j < next[k] + kLookAhead; ++j) {
      const HostCall& c = t.calls[q[j]];
      if (c.enterNs > op.startNs + kClockSlackNs) break;  // the GPU cannot run it before it is asked
      const std::string* callName = name(calls[q[j]]->rec.nameId);
      if (opName && callName && *opName != *callName) continue;
      op.call = int(q[j]);
      next[k] = j + 1;
      break;
    }
  }
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
  // Fixed-size fields: a damaged header may lack the NUL, so never read past the field.
  t.host.assign(log.header.host, strnlen(log.header.host, sizeof log.header.host));
  t.exe.assign(log.header.exe, strnlen(log.header.exe, sizeof log.header.exe));
  t.pid = log.header.pid;
  t.rank = log.header.rank;
  t.localRank = log.header.localRank;
  t.worldSize = log.header.worldSize;
  t.nodeRank = log.header.nodeRank;
  if (log.header.startRealtimeNs && log.header.startMonoNs)
    t.realtimeOffsetNs = int64_t(log.header.startRealtimeNs - log.header.startMonoNs);
  t.launcher = slog::launcherName(log.header.launcher);
  t.jobId.assign(log.header.jobId, strnlen(log.header.jobId, sizeof log.header.jobId));

  // Calls, in the order they were made (the log interleaves threads' chunks).
  std::vector<const ApiCall*> calls;
  calls.reserve(log.calls.size());
  for (const auto& c : log.calls) calls.push_back(&c);
  std::stable_sort(calls.begin(), calls.end(),
                   [](const ApiCall* a, const ApiCall* b) { return a->rec.tEnter < b->rec.tEnter; });
  for (const ApiCall* c : calls) queueCallSite(log, *c, sym);
  sym.run();

  std::map<std::pair<std::string, uint32_t>, int> locIndex;
  // Only logs whose GPU records name their launching call (kCorrelated, older recorders) need the
  // index: one entry per call cost ~50 bytes per call at the report's peak.
  const bool externalIds = std::any_of(log.activities.begin(), log.activities.end(),
                                       [](const slog::ActivityRecord& a) { return a.externalId != 0; });
  std::unordered_map<uint64_t, int> callByCorr;
  std::set<uint32_t> pythonThreads;  // threads with at least one Python line
  for (const ApiCall* c : calls) {
    HostCall h;
    h.tid = c->tid;
    h.api = c->rec.api;
    h.enterNs = c->rec.tEnter;
    h.exitNs = c->rec.tExit;
    h.stream = c->rec.stream;
    h.a0 = c->rec.a0;
    h.a1 = c->rec.a1;
    h.a2 = c->rec.a2;
    h.ret = c->rec.ret;
    h.corr = c->rec.corr;
    h.kind = c->rec.kind;
    h.blocking = isHostBlockingCandidate(c->rec);
    CallSite site = resolveCallSite(log, *c, sym);
    if (site.path != "<unknown>") h.loc = internLoc(t, locIndex, site);
    if (site.python) pythonThreads.insert(c->tid);
    if (externalIds && c->rec.corr) callByCorr[c->rec.corr] = int(t.calls.size());
    t.calls.push_back(h);
  }
  t.pythonThreads.assign(pythonThreads.begin(), pythonThreads.end());
  t.collectives = log.collectives;
  markGpuTimed(t, log);

  // Work queued by threads that run none of the user's code (autograd's device threads, NCCL's)
  // belongs to the line that set it off: the last source line a user thread issued a CUDA call
  // from. For backward() that is its own line: it queues the gradient seed first.
  std::set<uint32_t> userThreads;
  for (const auto& h : t.calls)
    if (h.loc >= 0 && t.locations[h.loc].line) userThreads.insert(h.tid);
  int lastUserLoc = -1;
  for (auto& h : t.calls) {
    bool located = h.loc >= 0 && t.locations[h.loc].line;
    if (userThreads.count(h.tid)) {
      if (located) lastUserLoc = h.loc;
    } else if (!located) {
      h.attributedLoc = lastUserLoc;
    }
  }

  // GPU work, on the host clock.
  ClockMap clock(log.clocks);
  t.gpuTiming = clock.valid && !log.activities.empty();
  if (t.gpuTiming) {
    t.ops.reserve(log.activities.size());
    std::vector<std::pair<uint32_t, size_t>> unjoined;  // (CUPTI correlation id, op index)
    for (const auto& a : log.activities) {
      if (a.start == 0 || a.end < a.start) continue;  // CUPTI's placeholder for an unfinished op
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
      else
        unjoined.emplace_back(a.correlationId, t.ops.size());
      t.ops.push_back(std::move(op));
    }
    joinByOrder(log, t, calls, unjoined);
    t.gpuTiming = !t.ops.empty();
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
  std::unordered_map<uint64_t, int> createdBlocking;  // handle -> 1 blocking / 0 non-blocking
  for (const auto& h : t.calls) {
    if (h.ret != 0 || !h.a0) continue;
    if (h.api == slog::Api::cudaStreamCreate) createdBlocking[h.a0] = 1;
    else if (h.api == slog::Api::cudaStreamCreateWithFlags || h.api == slog::Api::cudaStreamCreateWithPriority)
      createdBlocking[h.a0] = (h.a1 & 1) ? 0 : 1;  // cudaStreamNonBlocking = 1
  }
  auto busy = busyByStream(t);
  for (auto& [key, s] : streams) {
    // 0 = the legacy default stream; 1 = cudaStreamLegacy. 2 (cudaStreamPerThread) is not legacy.
    s.legacyDefault = s.handleKnown && (s.handle == 0 || s.handle == 1);
    if (auto it = createdBlocking.find(s.handle); s.handleKnown && it != createdBlocking.end())
      s.blocking = it->second;
    s.busyNs = length(busy[key]);
    t.streams.push_back(s);
  }

  t.beginNs = UINT64_MAX;
  for (const auto& h : t.calls) { t.beginNs = std::min(t.beginNs, h.enterNs); t.endNs = std::max(t.endNs, h.exitNs); }
  for (const auto& op : t.ops) { t.beginNs = std::min(t.beginNs, op.startNs); t.endNs = std::max(t.endNs, op.endNs); }
  if (t.beginNs == UINT64_MAX) t.beginNs = 0;
  finishGpuCoverage(t);
  return t;
}

}  // namespace sl::runtime
