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
};

uint64_t toMono(double scale, double offset, uint64_t cupti) {
  // Clamped: a damaged clock pair must not make the conversion undefined behaviour.
  double v = scale * double(cupti) + offset;
  return v <= 0 ? 0 : v >= 1.8e19 ? UINT64_MAX : uint64_t(v);
}

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

// ProcessTimeline::threads from the log's thread records: a thread started from library code (a
// pin-memory thread's frames are all torch's) takes its starter's start line.
void threadStarts(const ProcessLog& log, ProcessTimeline& t, std::map<std::pair<std::string, uint32_t>, int>& locIndex) {
  std::map<uint32_t, int> own;  // tid -> the user line that started it
  for (const auto& [tid, s] : log.threads) {
    t.threads[tid].name = s.name;
    auto code = log.codes.find(s.pyCode);
    if (!s.pyCode || code == log.codes.end()) continue;
    CallSite site;
    site.path = code->second.file;
    site.line = pythonLine(code->second, s.pyOffset);
    site.function = code->second.name;
    site.python = true;
    if (site.line && !isLibraryCode(site.path)) own[tid] = internLoc(t, locIndex, site);
  }
  for (auto& [tid, info] : t.threads) {
    uint32_t at = tid;
    for (int hops = 0; hops < 8 && at; ++hops) {
      if (auto it = own.find(at); it != own.end()) { info.startLoc = it->second; break; }
      auto s = log.threads.find(at);
      at = s == log.threads.end() ? 0 : s->second.parentTid;
    }
  }
}

// GPU ops whose launching call CUPTI did not name (no external correlation record): CUPTI's
// correlation ids grow in API-call order over the process, and so do the recorded calls by enter
// time. Per kind (kernel <- launch, memcpy <- copy, memset <- set) walk both in order and pair each
// op with the next call of its kind, requiring the same kernel name when both sides know it and a
// start after the call began. A bounded look-ahead skips ops from APIs the recorder does not hook
// (cuBLAS's internal memsets) instead of pairing them with a later call.
struct Unjoined {
  uint32_t correlationId, op;
};

// Asynchronous copies that cannot have waited: CUPTI saw no pageable memory on either side, so
// the driver queued the copy and returned (a pageable buffer makes it stage the bytes first, and
// the host waits for that). Their host time is the call's own cost, not blocking (SL901).
void markQueuedOnlyCopies(ProcessTimeline& t) {
  constexpr uint8_t kUnknown = 0, kPageable = 1;
  for (size_t k = 0; k < t.ops.size(); ++k) {
    GpuOp op = t.ops[k];  // by value: the ops may be on disk
    if (op.kind != slog::ActivityKind::Memcpy || op.call < 0) continue;
    if (op.srcKind == kUnknown || op.dstKind == kUnknown || op.srcKind == kPageable || op.dstKind == kPageable) continue;
    t.calls.update(size_t(op.call), [](HostCall& h) {
      if (slog::apiClass(h.api) == slog::ApiClass::CopyAsync) h.queuedOnly = true;
    });
  }
}

// Logs of older recorders (kCorrelated) name each GPU record's launching call (its external id is
// the call's corr). Joined by sorting both sides by that id and merging: (op index, call index)
// by op index. A hash map of the calls by corr cost ~50 bytes a call in memory.
struct IndexPair {
  uint64_t key = 0;
  uint32_t index = 0;
};
SpilledVector<IndexPair> callsByExternalId(const ProcessTimeline& t, const SpilledVector<uint64_t>& externalIdOf) {
  SpilledVector<IndexPair> calls, ops, joined;
  for (size_t i = 0; i < t.calls.size(); ++i)
    if (uint64_t corr = t.calls[i].corr) calls.push_back({corr, uint32_t(i)});
  for (size_t k = 0; k < externalIdOf.size(); ++k)
    if (uint64_t id = externalIdOf[k]) ops.push_back({id, uint32_t(k)});
  auto byKey = [](const IndexPair& p) { return p.key; };
  calls.sortStably(byKey);
  ops.sortStably(byKey);
  size_t c = 0;
  for (const IndexPair& op : ops) {
    while (c < calls.size() && calls[c].key < op.key) ++c;
    // Of calls with one corr the last one (as the map kept it).
    while (c + 1 < calls.size() && calls[c + 1].key == op.key) ++c;
    if (c < calls.size() && calls[c].key == op.key) joined.push_back({op.index, calls[c].index});
  }
  joined.sortStably(byKey);
  return joined;
}

void joinByOrder(const ProcessLog& log, ProcessTimeline& t, SpilledVector<Unjoined>& unjoined) {
  constexpr size_t kLookAhead = 32;
  constexpr uint64_t kClockSlackNs = 50000;
  // By correlation id; the ops were added in op order, so a stable sort keeps equal ids in it.
  unjoined.sortStably([](const Unjoined& u) { return uint64_t(u.correlationId); });
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
  SpilledVector<uint32_t> queue[4];  // call indices per kind, in call order
  for (size_t i = 0; i < t.calls.size(); ++i)
    if (const HostCall c = t.calls[i]; kindOf(slog::apiClass(c.api)) && c.ret == 0 && c.gpuTimed)
      queue[kindOf(slog::apiClass(c.api))].push_back(uint32_t(i));
  size_t next[4] = {0, 0, 0, 0};
  auto name = [&](uint32_t id) -> const std::string* {
    auto it = log.strings.find(id);
    return id && it != log.strings.end() ? &it->second : nullptr;
  };
  for (const Unjoined& u : unjoined) {
    const uint32_t opIndex = u.op;
    const GpuOp op = t.ops[opIndex];
    int k = op.kind == slog::ActivityKind::Kernel ? 1 : op.kind == slog::ActivityKind::Memcpy ? 2 : 3;
    const std::string* opName = op.kind == slog::ActivityKind::Kernel ? &op.name.str() : nullptr;
    auto& q = queue[k];
    for (size_t j = next[k]; j < q.size() && j < next[k] + kLookAhead; ++j) {
      const HostCall& c = t.calls[q[j]];
      if (c.enterNs > op.startNs + kClockSlackNs) break;  // the GPU cannot run it before it is asked
      const std::string* callName = name(c.nameId);
      if (opName && callName && *opName != *callName) continue;
      t.ops.update(opIndex, [&](GpuOp& o) { o.call = int(q[j]); });
      next[k] = j + 1;
      break;
    }
  }
}

// An event call whose first native frame is in c10's CUDA library, where the caching allocator
// lives (CallSite.cpp takes frames[0] as the library's own call too).
bool madeByCachingAllocator(const ProcessLog& log, const ApiCall& c) {
  auto cls = slog::apiClass(c.rec.api);
  if (cls != slog::ApiClass::Record && cls != slog::ApiClass::Query && cls != slog::ApiClass::Sync) return false;
  if (!c.nframes) return false;
  const Module* m = log.moduleFor(c.frame(log, 0));
  if (!m) return false;
  if (m->allocator < 0) {
    const std::string& p = m->path;
    size_t slash = p.rfind('/');
    m->allocator = p.compare(slash == std::string::npos ? 0 : slash + 1, std::string::npos, "libc10_cuda.so") == 0;
  }
  return m->allocator == 1;
}

}  // namespace

std::string StreamInfo::label() const {
  std::string s = legacyDefault ? "default stream" : "stream";
  s += " " + std::to_string(id);
  // The source's name first, the number beside it: what the user wrote, and what Nsight shows.
  if (!name.empty()) return name + " (" + s + (device ? " on GPU " + std::to_string(device) : "") + ")";
  return s + (device ? " (GPU " + std::to_string(device) + ")" : "");
}

const StreamInfo* ProcessTimeline::stream(uint32_t device, uint32_t id) const {
  for (const auto& s : streams)
    if (s.device == device && s.id == id) return &s;
  return nullptr;
}

ProcessTimeline buildTimeline(const ProcessLog& log, Symbolizer& sym) {
  for (const auto& c : log.calls) queueCallSite(log, c, sym);
  sym.run();
  TimelineBuilder b(log);
  for (const auto& c : log.calls) b.addCall(c, resolveCallSite(log, c, sym));
  for (const auto& a : log.activities) b.addActivity(a);
  return b.finish();
}

TimelineBuilder::TimelineBuilder(const ProcessLog& log) : meta_(log) {
  ProcessTimeline& t = t_;
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
  // Exactly as many as the log holds (a streaming read counted them first): a vector grown by
  // doubling holds up to twice its calls.
  t.calls.reserve(std::max<uint64_t>(log.keptCalls, log.calls.size()));
  ClockMap clock(log.clocks);
  clockValid_ = clock.valid;
  clockScale_ = clock.scale;
  clockOffset_ = clock.offset;
  if (clockValid_) {
    t.ops.reserve(std::max<uint64_t>(log.activityRecords, log.activities.size()));
    correlationIds_.reserve(std::max<uint64_t>(log.activityRecords, log.activities.size()));
  }
}

void TimelineBuilder::addCall(const ApiCall& c, const CallSite& site) {
  HostCall h;
  h.tid = c.tid;
  h.api = c.rec.api;
  h.enterNs = c.rec.tEnter;
  h.exitNs = c.rec.tExit;
  h.stream = c.rec.stream;
  h.a0 = c.rec.a0;
  h.a1 = c.rec.a1;
  h.a2 = c.rec.a2;
  h.ret = c.rec.ret;
  h.corr = c.rec.corr;
  h.kind = c.rec.kind;
  h.nameId = c.rec.nameId;
  h.blocking = isHostBlockingCandidate(c.rec);
  h.cachingAllocator = madeByCachingAllocator(meta_, c);
  // The site as resolved, for now: finish() numbers the locations in call order, as they were
  // numbered when the calls were sorted first.
  if (site.path != "<unknown>") {
    auto [it, fresh] = variantIndex_.emplace(std::make_tuple(site.path, site.line, site.function, site.python),
                                             int(variants_.size()));
    if (fresh) variants_.push_back(SourceLoc{site.path, site.line, site.function, site.python});
    h.loc = it->second;
  }
  if (site.python && std::find(pythonTids_.begin(), pythonTids_.end(), c.tid) == pythonTids_.end())
    pythonTids_.push_back(c.tid);
  t_.calls.push_back(h);
}

void TimelineBuilder::addActivity(const slog::ActivityRecord& a) {
  activities_++;
  externalIds_ = externalIds_ || a.externalId != 0;
  if (!clockValid_) return;  // no GPU timing without a clock: the ops are not kept
  if (a.start == 0 || a.end < a.start) return;  // CUPTI's placeholder for an unfinished op
  GpuOp op;
  op.kind = a.kind;
  op.copyKind = a.copyKind;
  op.srcKind = a.srcKind;
  op.dstKind = a.dstKind;
  op.device = a.deviceId;
  op.stream = a.streamId;
  op.startNs = toMono(clockScale_, clockOffset_, a.start);
  op.endNs = std::max(op.startNs, toMono(clockScale_, clockOffset_, a.end));
  op.bytes = a.bytes;
  op.name = opName(meta_, a);
  t_.ops.push_back(std::move(op));
  if (a.externalId && externalIdsOf_.empty()) externalIdsOf_.resize(correlationIds_.size());
  if (!externalIdsOf_.empty() || a.externalId) externalIdsOf_.push_back(a.externalId);
  correlationIds_.push_back(a.correlationId);
}

ProcessTimeline TimelineBuilder::finish() {
  const ProcessLog& log = meta_;
  ProcessTimeline& t = t_;
  // Calls, in the order they were made (the log interleaves threads' chunks).
  t.calls.sortStably([](const HostCall& h) { return h.enterNs; });
  std::map<std::pair<std::string, uint32_t>, int> locIndex;
  std::vector<int> locOfVariant(variants_.size(), -1);
  t.calls.forEachUpdate([&](HostCall& h) {
    if (h.loc < 0) return;
    int& loc = locOfVariant[size_t(h.loc)];
    if (loc < 0) {
      const SourceLoc& v = variants_[size_t(h.loc)];
      CallSite s;
      s.path = v.path;
      s.line = v.line;
      s.function = v.function;
      s.python = v.python;
      loc = internLoc(t, locIndex, s);
    }
    h.loc = loc;
  });
  std::sort(pythonTids_.begin(), pythonTids_.end());
  t.pythonThreads = pythonTids_;
  t.collectives = log.collectives;
  markGpuTimed(t, log);

  // Work queued by threads that run none of the user's code (autograd's device threads, NCCL's,
  // a DataLoader's pin-memory thread, whose Python frames are all torch's and threading.py's)
  // belongs to the line that set it off: the last user line a user thread issued a CUDA call
  // from. For backward() that is its own line: it queues the gradient seed first.
  // A thread the recorder saw started from a user line (slog::ThreadRecord: a pin-memory thread
  // from `for batch in loader:`, NCCL's watchdog from `init_process_group`) belongs to that line
  // instead; autograd's threads are the exception: one serves every backward() after the first.
  auto userLine = [&](const HostCall& h) {
    return h.loc >= 0 && t.locations[h.loc].line && !isLibraryCode(t.locations[h.loc].path);
  };
  std::set<uint32_t> userThreads;
  for (const auto& h : t.calls)
    if (userLine(h)) userThreads.insert(h.tid);
  threadStarts(log, t, locIndex);
  int lastUserLoc = -1;
  t.calls.forEachUpdate([&](HostCall& h) {
    if (userThreads.count(h.tid)) {
      if (userLine(h)) lastUserLoc = h.loc;
      return;
    }
    auto th = t.threads.find(h.tid);
    bool started = th != t.threads.end() && th->second.startLoc >= 0 && !th->second.autograd();
    h.attributedLoc = started ? th->second.startLoc : lastUserLoc;
  });

  // GPU work, on the host clock.
  t.gpuTiming = clockValid_ && activities_ > 0;
  if (t.gpuTiming) {
    // Only logs whose GPU records name their launching call (kCorrelated, older recorders).
    SpilledVector<IndexPair> named;  // (op, call) by op
    if (externalIds_) named = callsByExternalId(t, externalIdsOf_);
    SpilledVector<Unjoined> unjoined;
    size_t n = 0;
    for (size_t k = 0; k < t.ops.size(); ++k) {
      uint32_t correlationId = correlationIds_[k];
      if (n < named.size() && named[n].key == k)
        t.ops.update(k, [&](GpuOp& op) { op.call = int(named[n++].index); });
      else
        unjoined.push_back(Unjoined{correlationId, uint32_t(k)});
    }
    correlationIds_.clear();
    externalIdsOf_.clear();
    joinByOrder(log, t, unjoined);
    markQueuedOnlyCopies(t);
    t.gpuTiming = !t.ops.empty();
    t.ops.sortStably([](const GpuOp& op) { return op.startNs; });
  } else {
    t.ops.clear();
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
  return std::move(t_);
}

}  // namespace sl::runtime
