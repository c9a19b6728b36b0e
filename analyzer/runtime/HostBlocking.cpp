#include "runtime/HostBlocking.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "runtime/CallSite.h"
#include "runtime/RuntimeRules.h"
#include "runtime/Timeline.h"

namespace sl::runtime {

namespace {

using slog::ApiClass;

bool blockingClass(ApiClass c) {
  // Stream and event creation are in: on the H200, the first torch.cuda.Stream() of the user's
  // timing experiment waited 4.8 s for queued matmuls (tests/runtime/fixtures).
  return c == ApiClass::Sync || c == ApiClass::Alloc || c == ApiClass::Free ||
         c == ApiClass::Copy || c == ApiClass::CopyAsync || c == ApiClass::Set ||
         c == ApiClass::StreamLife || c == ApiClass::EventLife;
}

const char* kindName(ApiClass c) {
  switch (c) {
    case ApiClass::Sync: return "synchronization";
    case ApiClass::Alloc: return "allocation";
    case ApiClass::Free: return "free";
    case ApiClass::Copy: return "blocking copy";
    case ApiClass::CopyAsync: return "async copy";
    case ApiClass::Set: return "memset";
    case ApiClass::StreamLife: return "stream creation/destruction";
    case ApiClass::EventLife: return "event creation/destruction";
    default: return "call";
  }
}

struct Site {
  std::string path;
  uint32_t line = 0;
  std::string function;
  std::string native;  // module+0xoffset when no source line is known
  std::string api;
  ApiClass cls = ApiClass::Sync;
  uint64_t calls = 0, totalNs = 0, maxNs = 0;
  uint64_t firstNs = UINT64_MAX, lastNs = 0;  // enter times of its first and last call
  double spanShare = 0;  // the share of its process's CUDA calls made between its first and last call
  std::set<uint64_t> pids;
  std::set<int> ranks;
  std::set<uint32_t> threads;
  bool pythonProcessNoFrame = false;  // a Python program, but this thread ran no Python code
  bool python = false;                // its own site is a Python line
  // Calls made on threads that run none of the user's code, placed at the user line that set them
  // off (ProcessTimeline's attributedLoc): where they were made, and on what kind of thread.
  bool attributed = false;
  std::set<std::string> madeAt;       // "libtorch_cuda.so+0x17ab117", ".../pin_memory.py:55"
  std::vector<RelatedLocation> madeAtLines;  // the library Python lines among them
  std::set<std::string> threadKinds;  // "the DataLoader's pin-memory thread"
  bool byStart = false, byOrder = false;  // placed at the thread's start line / the last user line
};

using SiteKey = std::tuple<std::string, uint32_t, std::string, std::string>;
using SiteMap = std::map<SiteKey, Site>;

// A blocking call whose own site is no user line (library code, or a native caller without a
// line): its place is decided once the timeline knows which thread set it off.
struct DeferredCall {
  uint64_t pid = 0, enterNs = 0, blockedNs = 0;
  uint32_t tid = 0;
  int rank = -1;
  slog::Api api{};
  const Site* own = nullptr;  // its own site (counts unused), in Impl::ownSites
};

void count(Site& site, uint64_t pid, int rank, uint32_t tid, uint64_t enterNs, uint64_t blockedNs) {
  site.calls++;
  site.totalNs += blockedNs;
  site.maxNs = std::max(site.maxNs, blockedNs);
  site.pids.insert(pid);
  if (rank >= 0) site.ranks.insert(rank);
  site.threads.insert(tid);
  site.firstNs = std::min(site.firstNs, enterNs);
  site.lastNs = std::max(site.lastNs, enterNs);
}

std::string baseName(const std::string& p) { return p.substr(p.find_last_of('/') + 1); }

// What kind of thread made a call that ran none of the user's code: from its name (the recorder's
// thread records) and its own site.
std::string threadKind(const Site& own, bool pythonProcess, const ProcessTimeline::ThreadInfo& thread) {
  const std::string& name = thread.name;
  if (thread.autograd()) return "autograd's backward thread " + name;
  if (name.find("nccl") != std::string::npos || name.find("NCCL") != std::string::npos)
    return "NCCL's thread " + name;
  if (own.python)
    return own.path.find("/pin_memory.py") != std::string::npos
               ? "the DataLoader's pin-memory thread"
               : "a Python thread that runs only library code (" + baseName(own.path) + ")";
  return pythonProcess ? "a thread without Python code (such as autograd's backward threads)"
                       : "a thread without the program's own code";
}

// Code the user did not write: torch, site-packages, generated (inductor) code, or a module
// without a source line.
bool insideLibrary(const Site& s) { return !s.line || isLibraryCode(s.path); }

// Per-step cost or one-time set-up: a site whose calls recur through most of the program's CUDA
// work is paid every step (`x.to(device)` in the loop); one whose calls all fall in a short
// stretch of it is set-up (`model.cuda()`, the first cudaMalloc of each pool), however long it
// blocked. Measured in calls, not seconds: start-up (imports, NCCL init) can take longer than
// the training it precedes.
bool perStep(const Site& s) { return s.calls >= 3 && s.spanShare >= 0.5; }

// Pinned host memory: PyTorch's caching host allocator stages device-to-host reads in it.
bool pinnedHostApi(const std::string& api) {
  return api == "cudaHostAlloc" || api == "cudaMallocHost" || api == "cudaFreeHost" ||
         api == "cuMemHostAlloc" || api == "cuMemAllocHost" || api == "cuMemFreeHost";
}

// The mechanism and the remedy, per kind of blocking call and what the site did: advice that
// fits the call. A line that creates its streams once is not told to create them once, and a
// pinned staging buffer (what `float(t)` or `.item()` of a CUDA tensor allocates) is not told to
// avoid empty_cache().
std::string explain(const Site& s) {
  const bool recurs = perStep(s);
  switch (s.cls) {
    case ApiClass::Sync:
      return recurs ? "the CPU waits here until the GPU has finished the queued work and queues nothing "
                      "meanwhile; synchronize once outside the hot loop, or order work with events / "
                      "wait_stream instead"
                    : "the CPU waited here until the GPU had finished the queued work; a wait outside "
                      "the steps costs this once";
    case ApiClass::Alloc:
    case ApiClass::Free:
      if (pinnedHostApi(s.api))
        return "pinned host memory was allocated here, which waits for the device: PyTorch's caching "
               "host allocator stages a read of a CUDA tensor (`.item()`, `float(t)`, `print(t)`, "
               "`.cpu()`) in it and keeps the buffer for later reads of that size; where it recurs, "
               "read values back less often (accumulate on the GPU, log every N steps)";
      return recurs ? "device allocation and free synchronize the device; allocate once and reuse the "
                      "buffer (keep tensors alive across iterations, avoid empty_cache())"
                    : "the caching allocator grew its pool here (a device allocation synchronizes the "
                      "device); the memory is reused afterwards, so this is paid once";
    case ApiClass::Copy:
      return "a blocking copy waits for all earlier work on the device; copy from pinned memory "
             "with non_blocking=True and synchronize once where the result is needed";
    case ApiClass::CopyAsync:
      return "this asynchronous copy still blocked the host, which happens when the host buffer "
             "is pageable; pin it (pin_memory()) so the copy can overlap";
    case ApiClass::StreamLife:
      return recurs ? "creating or destroying a stream waited for work already queued on the device; "
                      "create streams once, before the GPU is busy, and reuse them"
                    : "creating a stream waited for work already queued on the device; this line "
                      "creates its streams once (PyTorch makes its whole pool of streams at the first "
                      "torch.cuda.Stream()), so what it cost is that wait: create the stream before "
                      "the first GPU work";
    case ApiClass::EventLife:
      return recurs ? "creating or destroying an event waited for the device; create events once and "
                      "reuse them"
                    : "creating or destroying an event waited for work already queued on the device; "
                      "done once here, so the cost is that wait: create events before the first GPU work";
    default:
      return "the host waited for the device here";
  }
}

std::string phaseSentence(const Site& s) {
  int share = int(std::lround(100 * s.spanShare));
  if (perStep(s))
    return "; a per-step cost: its calls recur through " + std::to_string(share) + " % of the run's CUDA calls";
  if (s.calls == 1) return "; one-time: a single call (ranked after per-step costs)";
  std::string among = share >= 1 ? "; " + std::to_string(share) + " % of the run's CUDA calls came in between" : "";
  return "; one-time set-up: all its calls fell within " + humanTime(double(s.lastNs - s.firstNs)) + " (ranked after "
         "per-step costs" + among + ")";
}

// The enter times of a process's calls, sorted, to price a site's span in calls: a timeline's
// calls (sorted by enter time) or, for held logs, their own copy.
struct CallClock {
  std::vector<uint64_t> own;
  const SpilledVector<HostCall>* calls = nullptr;
  explicit CallClock(const ProcessLog& log) {
    own.reserve(log.calls.size());
    for (const auto& c : log.calls) own.push_back(c.rec.tEnter);
    std::sort(own.begin(), own.end());
  }
  explicit CallClock(const ProcessTimeline& t) : calls(&t.calls) {}
  size_t size() const { return calls ? calls->size() : own.size(); }
  uint64_t at(size_t i) const { return calls ? (*calls)[i].enterNs : own[i]; }
  // First index whose time is >= t (strict: > t).
  size_t bound(uint64_t t, bool strict) const {
    size_t lo = 0, hi = size();
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (strict ? at(mid) <= t : at(mid) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  // The share of the other calls (not the site's own `own`: torch's 128 stream creations at
  // once would otherwise span themselves) made from `from` to `to`.
  double share(uint64_t from, uint64_t to, uint64_t ownCalls) const {
    if (size() <= ownCalls || to < from) return 0;
    uint64_t inside = uint64_t(bound(to, true) - bound(from, false));
    return double(inside > ownCalls ? inside - ownCalls : 0) / double(size() - ownCalls);
  }
};

std::vector<Finding> rankedFindings(SiteMap& sites, const std::map<uint64_t, const CallClock*>& clockOfPid,
                                    const HostBlockingOptions& options);

}  // namespace

struct HostBlockingSites::Impl {
  SiteMap sites;     // calls at user lines
  SiteMap ownSites;  // the own sites of deferred calls (their counts unused)
  // One per blocking call off the user's lines (autograd's and NCCL's threads: ~10 % of a DDP
  // log's calls): in a temporary file past a set size (SpilledVector.h).
  SpilledVector<DeferredCall> deferred;
  // Places the deferred calls into `out`: at the user line their timeline attributes them to,
  // else at their own site.
  void place(SiteMap& out, const std::vector<ProcessTimeline>* timelines) const;
};

namespace {

// The deferred calls' attributed locations in their timelines, as (deferred index, location) by
// index; calls not found have none. The deferred calls of a process are looked up in order of
// enter time against its calls (by enter time) with one forward cursor: a binary search per
// call read a page of the calls' temporary file per step (a sixth of the report's time).
struct FoundLoc {
  uint64_t index = 0;
  int64_t loc = -1;
  bool queuedOnly = false;  // HostCall::queuedOnly: an async copy that waited for nothing
};
SpilledVector<FoundLoc> attributedLocs(const SpilledVector<DeferredCall>& deferred,
                                       const std::map<uint64_t, const ProcessTimeline*>& byPid) {
  struct Query {
    uint64_t enterNs = 0, index = 0;
  };
  SpilledVector<FoundLoc> found;
  for (const auto& [pid, t] : byPid) {
    SpilledVector<Query> queries;
    for (size_t k = 0; k < deferred.size(); ++k)
      if (DeferredCall d = deferred[k]; d.pid == pid) queries.push_back({d.enterNs, k});
    queries.sortStably([](const Query& q) { return q.enterNs; });
    size_t c = 0;
    for (const Query& q : queries) {
      while (c < t->calls.size() && t->calls[c].enterNs < q.enterNs) ++c;
      DeferredCall d = deferred[q.index];
      for (size_t i = c; i < t->calls.size(); ++i) {  // read by value: the calls may be on disk
        HostCall h = t->calls[i];
        if (h.enterNs != d.enterNs) break;
        if (h.tid == d.tid && h.api == d.api) { found.push_back({q.index, h.attributedLoc, h.queuedOnly}); break; }
      }
    }
  }
  found.sortStably([](const FoundLoc& f) { return f.index; });
  return found;
}

}  // namespace

void HostBlockingSites::Impl::place(SiteMap& out, const std::vector<ProcessTimeline>* timelines) const {
  std::map<uint64_t, const ProcessTimeline*> byPid;
  if (timelines)
    for (const auto& t : *timelines) byPid[t.pid] = &t;
  SpilledVector<FoundLoc> found = attributedLocs(deferred, byPid);
  size_t next = 0;
  for (size_t k = 0; k < deferred.size(); ++k) {
    const DeferredCall d = deferred[k];
    const Site& own = *d.own;
    int loc = -1;
    bool queuedOnly = false;
    if (next < found.size() && found[next].index == k) {
      FoundLoc f = found[next++];
      loc = int(f.loc);
      queuedOnly = f.queuedOnly;
    }
    if (queuedOnly) continue;  // an async copy that waited for nothing (Timeline: markQueuedOnlyCopies)
    const ProcessTimeline* t = nullptr;
    if (auto it = byPid.find(d.pid); it != byPid.end()) t = it->second;
    if (loc < 0) {
      Site& site = out[{own.path, own.line, own.line ? std::string() : own.native, own.api}];
      if (site.calls == 0) site = own;
      count(site, d.pid, d.rank, d.tid, d.enterNs, d.blockedNs);
      continue;
    }
    const SourceLoc& at = t->locations[size_t(loc)];
    ProcessTimeline::ThreadInfo thread;  // unnamed when the log has no record of it
    if (auto th = t->threads.find(d.tid); th != t->threads.end()) thread = th->second;
    const bool byStart = thread.startLoc == loc && !thread.autograd();
    Site& site = out[{at.path, at.line, "<attributed>", own.api}];
    if (site.calls == 0) {
      site = own;
      site.path = at.path;
      site.line = at.line;
      site.function = at.function;
      site.native.clear();
      site.python = at.python;
      site.pythonProcessNoFrame = false;
      site.attributed = true;
    }
    const bool pythonProcess = own.python || own.pythonProcessNoFrame;
    std::string kind = threadKind(own, pythonProcess, thread);
    std::string made = own.line ? own.path + ":" + std::to_string(own.line) : own.native;
    if (site.madeAt.insert(made).second && own.line && site.madeAtLines.size() < 3)
      site.madeAtLines.push_back({own.path, Loc{own.line, 1}, "the call was made here, on " + kind});
    site.threadKinds.insert(kind);
    (byStart ? site.byStart : site.byOrder) = true;
    count(site, d.pid, d.rank, d.tid, d.enterNs, d.blockedNs);
  }
}

HostBlockingSites::HostBlockingSites() : impl_(new Impl) {}
HostBlockingSites::~HostBlockingSites() { delete impl_; }

bool isHostBlockingCandidate(const slog::ApiRecord& r) { return blockingClass(slog::apiClass(r.api)); }

void HostBlockingSites::add(const ProcessLog& log, const ApiCall& c, const CallSite& where) {
  ApiClass cls = slog::apiClass(c.rec.api);
  if (!blockingClass(cls)) return;
  Site s;
  s.path = where.path;
  s.line = where.line;
  s.function = where.function;
  s.native = where.native;
  s.pythonProcessNoFrame = !where.python && log.header.pythonVersion != 0;
  s.python = where.python;
  s.api = slog::apiName(c.rec.api);
  s.cls = cls;
  SiteKey key{s.path, s.line, s.line ? std::string() : s.native, s.api};
  // Deferred to place(), which sees the timeline: calls at no user line go to the line that set
  // them off, and async copies of a GPU-timed log only count when their copy could have waited.
  bool timedCopy = cls == ApiClass::CopyAsync && log.activityRecords > 0;
  if (!s.line || isLibraryCode(s.path) || timedCopy) {
    Site& own = impl_->ownSites[key];
    if (own.api.empty()) own = s;
    impl_->deferred.push_back({log.header.pid, c.rec.tEnter, c.blockedNs(), c.tid, log.header.rank, c.rec.api, &own});
    return;
  }
  auto& site = impl_->sites[key];
  if (site.calls == 0) site = s;
  count(site, log.header.pid, log.header.rank, c.tid, c.rec.tEnter, c.blockedNs());
}

std::vector<Finding> HostBlockingSites::findings(const std::vector<ProcessTimeline>& timelines,
                                                 const HostBlockingOptions& options) const {
  std::vector<CallClock> clocks;
  clocks.reserve(timelines.size());
  std::map<uint64_t, const CallClock*> clockOfPid;
  for (const auto& t : timelines) {
    clocks.emplace_back(t);
    clockOfPid[t.pid] = &clocks.back();
  }
  SiteMap sites = impl_->sites;
  impl_->place(sites, &timelines);
  return rankedFindings(sites, clockOfPid, options);
}

std::vector<Finding> measuredHostBlocking(const std::vector<ProcessLog>& logs,
                                          const HostBlockingOptions& options, Symbolizer& sym) {
  // Pass 1: native sites need symbolizing; batched per module (sites `sym` knows are not redone).
  for (const auto& log : logs)
    for (const auto& c : log.calls)
      if (blockingClass(slog::apiClass(c.rec.api))) queueCallSite(log, c, sym);
  sym.run();
  // Pass 2: aggregate per (location, API).
  HostBlockingSites sites;
  for (const auto& log : logs)
    for (const auto& c : log.calls)
      if (blockingClass(slog::apiClass(c.rec.api))) sites.add(log, c, resolveCallSite(log, c, sym));
  std::vector<CallClock> clocks;
  clocks.reserve(logs.size());
  std::map<uint64_t, const CallClock*> clockOfPid;
  for (const auto& log : logs) {
    clocks.emplace_back(log);
    clockOfPid[log.header.pid] = &clocks.back();
  }
  // The timelines say which thread set off the calls of threads without user code.
  std::vector<ProcessTimeline> timelines;
  for (const auto& log : logs) timelines.push_back(buildTimeline(log, sym));
  SiteMap all = sites.impl_->sites;
  sites.impl_->place(all, &timelines);
  return rankedFindings(all, clockOfPid, options);
}

namespace {

// Said of a site whose calls were made on threads that run none of the user's code.
std::string attributionSentence(const Site& s) {
  std::string kinds;
  for (const auto& k : s.threadKinds) kinds += (kinds.empty() ? "" : " and ") + k;
  std::string made;
  size_t n = 0;
  for (const auto& m : s.madeAt) {
    if (n++ == 2) { made += ", ..."; break; }
    made += (made.empty() ? "" : ", ") + (m.find('/') != std::string::npos ? baseName(m) : m);
  }
  std::string how = s.byStart && s.byOrder ? "this line started the thread or ran last before the call"
                    : s.byStart ? "this line started the thread"
                                : "each call goes to the user line whose CUDA calls came last before it";
  return "; queued for this line by " + kinds + " (no user code runs there: " + how + "; made at " + made + ")";
}

std::vector<Finding> rankedFindings(SiteMap& sites, const std::map<uint64_t, const CallClock*>& clockOfPid,
                                    const HostBlockingOptions& options) {
  // A site seen in several processes (ranks) takes its widest span.
  for (auto& [key, s] : sites)
    for (uint64_t pid : s.pids) {
      const CallClock& clock = *clockOfPid.at(pid);
      s.spanShare = std::max(s.spanShare, clock.share(s.firstNs, s.lastNs, s.pids.size() == 1 ? s.calls : 0));
    }

  std::vector<const Site*> ranked;
  for (const auto& [key, s] : sites)
    if (s.totalNs / 1e3 >= options.minBlockingMicros) ranked.push_back(&s);
  // Per-step costs first, then set-up; the user's own lines before library code; then by cost.
  std::stable_sort(ranked.begin(), ranked.end(), [](const Site* a, const Site* b) {
    auto tier = [](const Site* s) { return (perStep(*s) ? 0 : 2) + (insideLibrary(*s) ? 1 : 0); };
    if (tier(a) != tier(b)) return tier(a) < tier(b);
    return a->totalNs > b->totalNs;
  });

  std::vector<Finding> out;
  for (const Site* s : ranked) {
    double total = s->totalNs / 1e3, mx = s->maxNs / 1e3;
    Finding f;
    f.ruleId = "SL901";
    f.severity = Severity::Warning;
    f.path = s->path;
    f.loc = Loc{s->line, s->line ? 1u : 0u};
    f.message = "`" + s->api + "` blocked the host for " + humanTime(total * 1e3) + " in " +
                std::to_string(s->calls) + (s->calls == 1 ? " call" : " calls") +
                (s->calls > 1 ? " (longest " + humanTime(mx * 1e3) + ")" : std::string()) + ": " +
                explain(*s) +
                (s->attributed ? attributionSentence(*s)
                 : s->pythonProcessNoFrame
                     ? " (called on a thread that runs no Python code, such as autograd's backward "
                       "threads, before any user line ran: the native caller is shown)"
                     : "") +
                phaseSentence(*s);
    f.notes = s->madeAtLines;
    f.properties = {{"api", s->api},
                    {"phase", perStep(*s) ? "per-step" : "set-up"},
                    {"insideLibrary", insideLibrary(*s)},
                    {"costMicros", std::round(total * 10) / 10},
                    {"calls", s->calls},
                    {"blockedMicros", std::round(total * 10) / 10},
                    {"maxBlockedMicros", std::round(mx * 10) / 10},
                    {"kind", kindName(s->cls)},
                    {"processes", s->pids.size()},
                    {"threads", s->threads.size()}};
    if (!s->ranks.empty()) f.properties["ranks"] = std::vector<int>(s->ranks.begin(), s->ranks.end());
    if (!s->function.empty()) f.properties["function"] = s->function;
    if (!s->native.empty()) f.properties["nativeAddress"] = s->native;
    if (s->attributed) {
      f.properties["attributedFrom"] = std::vector<std::string>(s->madeAt.begin(), s->madeAt.end());
      f.properties["attributedThreads"] = std::vector<std::string>(s->threadKinds.begin(), s->threadKinds.end());
      f.properties["attributedBy"] = s->byStart && s->byOrder ? "thread start and call order"
                                     : s->byStart             ? "thread start"
                                                              : "call order";
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

}  // namespace sl::runtime
