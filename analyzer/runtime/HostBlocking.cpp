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

// The mechanism and the remedy, per kind of blocking call.
const char* explain(ApiClass c) {
  switch (c) {
    case ApiClass::Sync:
      return "the CPU waits here until the GPU has finished the queued work and queues nothing "
             "meanwhile; synchronize once outside the hot loop, or order work with events / "
             "wait_stream instead";
    case ApiClass::Alloc:
    case ApiClass::Free:
      return "device allocation and free synchronize the device; allocate once and reuse the "
             "buffer (keep tensors alive across iterations, avoid empty_cache())";
    case ApiClass::Copy:
      return "a blocking copy waits for all earlier work on the device; copy from pinned memory "
             "with non_blocking=True and synchronize once where the result is needed";
    case ApiClass::CopyAsync:
      return "this asynchronous copy still blocked the host, which happens when the host buffer "
             "is pageable; pin it (pin_memory()) so the copy can overlap";
    case ApiClass::StreamLife:
      return "creating or destroying a stream waited for work already queued on the device; "
             "create streams once, before the GPU is busy, and reuse them";
    case ApiClass::EventLife:
      return "creating or destroying an event waited for the device; create events once and "
             "reuse them";
    default:
      return "the host waited for the device here";
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
};

// Code the user did not write: torch, site-packages, generated (inductor) code, or a module
// without a source line.
bool insideLibrary(const Site& s) {
  return !s.line || isLibrarySource(s.path) || s.path.find("/torchinductor_") != std::string::npos ||
         s.path.find("/torch/") != std::string::npos;
}

// Per-step cost or one-time set-up: a site whose calls recur through most of the program's CUDA
// work is paid every step (`x.to(device)` in the loop); one whose calls all fall in a short
// stretch of it is set-up (`model.cuda()`, the first cudaMalloc of each pool), however long it
// blocked. Measured in calls, not seconds: start-up (imports, NCCL init) can take longer than
// the training it precedes.
bool perStep(const Site& s) { return s.calls >= 3 && s.spanShare >= 0.5; }

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

std::vector<Finding> rankedFindings(std::map<std::tuple<std::string, uint32_t, std::string, std::string>, Site>& sites,
                                    const std::map<uint64_t, const CallClock*>& clockOfPid,
                                    const HostBlockingOptions& options);

}  // namespace

struct HostBlockingSites::Impl {
  std::map<std::tuple<std::string, uint32_t, std::string, std::string>, Site> sites;
};

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
  s.api = slog::apiName(c.rec.api);
  auto& site = impl_->sites[{s.path, s.line, s.line ? std::string() : s.native, s.api}];
  if (site.calls == 0) site = s;
  site.cls = cls;
  site.calls++;
  site.totalNs += c.blockedNs();
  site.maxNs = std::max(site.maxNs, c.blockedNs());
  site.pids.insert(log.header.pid);
  if (log.header.rank >= 0) site.ranks.insert(log.header.rank);
  site.threads.insert(c.tid);
  site.firstNs = std::min(site.firstNs, c.rec.tEnter);
  site.lastNs = std::max(site.lastNs, c.rec.tEnter);
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
  auto sites = impl_->sites;
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
  return rankedFindings(sites.impl_->sites, clockOfPid, options);
}

namespace {

std::vector<Finding> rankedFindings(std::map<std::tuple<std::string, uint32_t, std::string, std::string>, Site>& sites,
                                    const std::map<uint64_t, const CallClock*>& clockOfPid,
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
                explain(s->cls) +
                (s->pythonProcessNoFrame
                     ? " (called on a thread that runs no Python code, such as autograd's backward "
                       "threads: the native caller is shown)"
                     : "") +
                phaseSentence(*s);
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
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

}  // namespace sl::runtime
