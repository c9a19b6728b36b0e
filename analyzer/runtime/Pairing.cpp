#include "runtime/Pairing.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "runtime/GpuCoverage.h"

namespace sl::runtime {

namespace {

std::vector<std::string> components(const std::string& p) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    std::string c = p.substr(i, j - i);
    if (!c.empty() && c != ".") out.push_back(c);
    i = j + 1;
  }
  return out;
}

std::string mib(uint64_t bytes) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1024.0 * 1024.0));
  return buf;
}

bool isAlloc(slog::Api a) {
  auto c = slog::apiClass(a);
  return c == slog::ApiClass::Alloc || c == slog::ApiClass::AllocAsync;
}

// What calls reported at a source line did: summed per location and timeline (LocSums), then
// over the timelines (LineEvidence).
struct CallSums {
  uint64_t calls = 0, blockedNs = 0, gpuNs = 0, allocCalls = 0, allocBytes = 0;
  // The calls that queue GPU work, and how many of all the calls (and of those) began while GPU
  // timing was on.
  uint64_t workCalls = 0, timedCalls = 0, timedWorkCalls = 0;
  std::map<std::string, uint64_t> apis, opsByStream;
  std::set<std::string> directStreams;  // streams of the work the calls queued themselves
  void add(const CallSums& o) {
    calls += o.calls, blockedNs += o.blockedNs, gpuNs += o.gpuNs;
    allocCalls += o.allocCalls, allocBytes += o.allocBytes;
    workCalls += o.workCalls, timedCalls += o.timedCalls, timedWorkCalls += o.timedWorkCalls;
    for (const auto& [api, n] : o.apis) apis[api] += n;
    for (const auto& [label, n] : o.opsByStream) opsByStream[label] += n;
    directStreams.insert(o.directStreams.begin(), o.directStreams.end());
  }
};

// What one source line did in a run, over all processes.
struct LineEvidence : CallSums {
  bool fileRan = false;
  uint64_t allocBytesBefore = 0;  // through cudaMalloc & co. before this line's first allocation
  // The line's own stream, when it is a side stream: its busy and overlapped time in the run.
  std::string regionStream;
  uint64_t regionBusyNs = 0, regionOverlappedNs = 0;
  Coverage timed;  // the line's sampled processes, whose GPU figures cover the windows
};

// What the calls reported at one location (their own or attributed line) did in one timeline,
// and the GPU ops they queued. Summed in one pass over the calls and one over the ops, so that
// pairing N findings does not walk every call N times, and nothing is held per call: an index of
// the calls at each location and the ops of each call was ~10 bytes per call on long logs.
struct LocSums : CallSums {
  size_t firstAlloc = SIZE_MAX;  // the first allocating call's index
  std::pair<uint32_t, uint32_t> direct{UINT32_MAX, UINT32_MAX};  // (device, stream) of a direct op
};

struct TimelineIndex {
  std::vector<LocSums> at;  // by location
  // The allocating calls and the bytes allocated before each: few with PyTorch's caching
  // allocator, one per step without it, so in a temporary file past a set size.
  struct AllocMark {
    uint64_t call = 0, bytesBefore = 0;
  };
  SpilledVector<AllocMark> allocs;
  uint64_t allocTotal = 0;
  explicit TimelineIndex(const ProcessTimeline& t) : at(t.locations.size()) {
    for (size_t ci = 0; ci < t.calls.size(); ++ci) {
      const HostCall c = t.calls[ci];
      if (isAlloc(c.api)) {
        allocs.push_back({ci, allocTotal});
        allocTotal += c.a2;
      }
      int loc = t.reportLoc(c);
      if (loc < 0) continue;
      LocSums& s = at[size_t(loc)];
      s.calls++;
      bool work = queuesGpuWork(c.api);
      s.workCalls += work;
      s.timedCalls += c.gpuTimed;
      s.timedWorkCalls += c.gpuTimed && work;
      s.apis[slog::apiName(c.api)]++;
      if (c.blocking) s.blockedNs += c.blockedNs();
      if (isAlloc(c.api)) {
        s.allocCalls++;
        s.allocBytes += c.a2;
        s.firstAlloc = std::min(s.firstAlloc, ci);
      }
    }
    for (const GpuOp& op : t.ops) {
      if (op.call < 0 || size_t(op.call) >= t.calls.size()) continue;
      const HostCall c = t.calls[size_t(op.call)];
      int loc = t.reportLoc(c);
      if (loc < 0) continue;
      LocSums& s = at[size_t(loc)];
      const StreamInfo* si = t.stream(op.device, op.stream);
      std::string label = si ? si->label() : "stream " + std::to_string(op.stream);
      s.opsByStream[label]++;
      s.gpuNs += op.endNs - op.startNs;
      if (c.attributedLoc < 0) {
        s.directStreams.insert(label);
        s.direct = {op.device, op.stream};
      }
    }
  }
  // Bytes allocated by the calls before call `ci` (ci may be one past the last).
  uint64_t allocBefore(size_t ci) const {
    auto it = std::lower_bound(allocs.begin(), allocs.end(), uint64_t(ci),
                               [](const AllocMark& a, uint64_t c) { return a.call < c; });
    return it == allocs.end() ? allocTotal : (*it).bytesBefore;
  }
};

LineEvidence gather(const RunData& run, const std::vector<TimelineIndex>& index,
                    const std::string& path, uint32_t line) {
  LineEvidence e;
  for (size_t ti = 0; ti < run.timelines.size(); ++ti) {
    const ProcessTimeline& t = run.timelines[ti];
    bool ran = false;  // some call reported at path:line
    size_t firstAlloc = t.calls.size();
    std::pair<uint32_t, uint32_t> direct{UINT32_MAX, UINT32_MAX};
    for (size_t i = 0; i < t.locations.size(); ++i) {
      if (!samePath(t.locations[i].path, path)) continue;
      e.fileRan = true;
      const LocSums& s = index[ti].at[i];
      if (t.locations[i].line != line || !s.calls) continue;
      ran = true;
      e.add(s);
      firstAlloc = std::min(firstAlloc, s.firstAlloc);
      if (!s.directStreams.empty()) direct = s.direct;  // one stream when it is used (below)
    }
    if (!ran) continue;
    e.timed.add(t);
    e.allocBytesBefore += index[ti].allocBefore(firstAlloc);
    if (e.directStreams.size() == 1)
      for (const auto& so : run.overlaps[ti].streams)
        if (so.device == direct.first && so.stream == direct.second) {
          const StreamInfo* s = t.stream(so.device, so.stream);
          if (!s || s->legacyDefault) continue;
          e.regionStream = s->label();
          e.regionBusyNs += so.busyNs;
          e.regionOverlappedNs += so.overlappedNs;
        }
  }
  return e;
}

// SL501: how long the GPU ran on after the host finished queueing the timed interval's work.
struct Drain {
  uint64_t ops = 0, hostNs = 0, drainNs = 0;
  std::string paidAt;  // "path:19 (cudaStreamCreateWithPriority blocked 4.84 s)"
  RelatedLocation paidNote;
  Coverage timed;  // sampled timing: only the ops of the calls in the timed windows
  // Sampled timing: the interval's calls that queue GPU work, and how many began in a window.
  uint64_t sampledWorkCalls = 0, timedWorkCalls = 0;
};

Drain measureDrain(const RunData& run, const Finding& f) {
  Drain d;
  uint32_t first = f.loc.line;
  for (const auto& n : f.notes)
    if (n.message.find("interval starts") != std::string::npos && n.loc.line < first) first = n.loc.line;
  for (const auto& t : run.timelines) {
    uint64_t begin = UINT64_MAX, lastQueued = 0, gpuEnd = 0;
    uint32_t tid = 0;
    // The lines' own work: the interval is host code on one thread.
    auto inInterval = [&](const HostCall& c) {
      if (c.loc < 0 || !samePath(t.locations[c.loc].path, f.path)) return false;
      uint32_t line = t.locations[c.loc].line;
      return line >= first && line <= f.loc.line;
    };
    if (t.sampled)
      for (const auto& c : t.calls)
        if (queuesGpuWork(c.api) && inInterval(c)) {
          d.sampledWorkCalls++;
          d.timedWorkCalls += c.gpuTimed;
        }
    for (const auto& op : t.ops) {
      if (op.call < 0) continue;
      const HostCall& c = t.calls[op.call];
      if (!inInterval(c)) continue;
      d.ops++;
      begin = std::min(begin, c.enterNs);
      if (c.exitNs > lastQueued) { lastQueued = c.exitNs; tid = c.tid; }
      gpuEnd = std::max(gpuEnd, op.endNs);
    }
    if (!lastQueued || gpuEnd <= lastQueued) continue;
    d.timed.add(t);
    d.hostNs += lastQueued - begin;
    d.drainNs += gpuEnd - lastQueued;
    for (const auto& c : t.calls)
      if (c.tid == tid && c.enterNs >= lastQueued && c.blockedNs() >= 1000000) {
        int loc = t.reportLoc(c);
        if (loc >= 0)
          d.paidNote = {t.locations[loc].path, Loc{t.locations[loc].line, 1},
                        std::string("measured: the timed GPU work was waited for here (") +
                            slog::apiName(c.api) + " blocked " + humanTime(double(c.blockedNs())) + ")"};
        d.paidAt = (loc >= 0 ? t.locations[loc].path + ":" + std::to_string(t.locations[loc].line)
                             : std::string("an unknown line")) +
                   " (" + slog::apiName(c.api) + " blocked " + humanTime(double(c.blockedNs())) + ")";
        break;
      }
  }
  return d;
}

std::string describeStreams(const std::map<std::string, uint64_t>& byStream) {
  std::vector<std::pair<uint64_t, std::string>> v;
  for (const auto& [s, n] : byStream) v.emplace_back(n, s);
  std::sort(v.rbegin(), v.rend());
  std::string out;
  for (const auto& [n, s] : v) out += (out.empty() ? "" : ", ") + std::to_string(n) + " on " + s;
  return out;
}

// "; GPU work: 776 on default stream 7, ..." for a line timed throughout. With sampled timing the
// ops are those of the calls that began in a window, and the sentence says how many those were:
// a line none of whose calls was timed did not run without GPU work, its work was not seen.
std::string describeGpuWork(const LineEvidence& e, nlohmann::json& r) {
  if (!e.timed.sampled()) return e.opsByStream.empty() ? "" : "; GPU work: " + describeStreams(e.opsByStream);
  r["gpuTimedCalls"] = e.timedCalls;
  e.timed.describe(r);
  if (!e.workCalls) return "";
  if (!e.timedWorkCalls) {
    r["gpuWork"] = "not timed";
    return "; calls recorded, GPU work not timed (sampled GPU timing: none of its " +
           (e.timedCalls ? std::to_string(e.workCalls) + " calls that queue GPU work"
                         : std::to_string(e.calls) + " calls") +
           " fell in a timed window)";
  }
  if (e.opsByStream.empty()) return "";
  return "; GPU work of the " + std::to_string(e.timedCalls) + " of its " + std::to_string(e.calls) +
         " calls " + e.timed.inWindows() + ": " + describeStreams(e.opsByStream);
}

// The lines a finding names in its own file: where it is and where its notes point.
std::vector<uint32_t> linesOf(const Finding& f) {
  std::vector<uint32_t> lines = {f.loc.line};
  for (const auto& n : f.notes)
    if (n.path == f.path || samePath(n.path, f.path)) lines.push_back(n.loc.line);
  return lines;
}

bool contains(const std::vector<uint32_t>& v, uint32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// A static ordering finding is confirmed by a race the run saw on the same lines: the SL904's
// place or other access is the static finding's line or one of its notes' (a static SL201 sits
// on the free and names the side-stream use; the runtime one sits on that use).
const Finding* confirmingRace(const Finding& f, const std::vector<Finding>& measured) {
  static const char* kOrdering[] = {"SL101", "SL102", "SL103", "SL201"};
  if (std::find(std::begin(kOrdering), std::end(kOrdering), f.ruleId) == std::end(kOrdering)) return nullptr;
  std::vector<uint32_t> mine = linesOf(f);
  for (const auto& m : measured) {
    if (m.ruleId != "SL904" || !samePath(m.path, f.path)) continue;
    if (contains(mine, m.loc.line)) return &m;
    for (const auto& n : m.notes)
      if (n.loc.line == f.loc.line && samePath(n.path, f.path)) return &m;
  }
  return nullptr;
}

}  // namespace

bool samePath(const std::string& a, const std::string& b) {
  if (a == b) return true;
  auto x = components(a), y = components(b);
  size_t need = std::min<size_t>(3, std::min(x.size(), y.size()));
  if (need == 0) return false;
  size_t same = 0;
  while (same < x.size() && same < y.size() && x[x.size() - 1 - same] == y[y.size() - 1 - same]) ++same;
  return same >= need;
}

void pairWithRun(std::vector<Finding>& staticFindings, const RunData& run,
                 const std::vector<Finding>& measured) {
  if (staticFindings.empty()) return;  // the sums below serve static findings only
  std::vector<TimelineIndex> index;
  for (const auto& t : run.timelines) index.emplace_back(t);
  for (auto& f : staticFindings) {
    LineEvidence e = gather(run, index, f.path, f.loc.line);
    nlohmann::json r = nlohmann::json::object();
    double cost = double(e.blockedNs) / 1e3;
    std::string said;
    if (e.calls) {
      r["status"] = "measured";
      r["calls"] = e.calls;
      r["apis"] = e.apis;
      r["blockedMicros"] = double(e.blockedNs) / 1e3;
      r["gpuMicros"] = double(e.gpuNs) / 1e3;
      r["operationsByStream"] = e.opsByStream;
      said = std::to_string(e.calls) + (e.calls == 1 ? " CUDA call" : " CUDA calls") + " from this line";
      if (e.blockedNs) said += ", host blocked " + humanTime(double(e.blockedNs));
      said += describeGpuWork(e, r);
      if (!e.regionStream.empty()) {
        said += "; " + e.regionStream + " (this line's) ran " + humanTime(double(e.regionBusyNs)) +
                " of GPU work " + (e.timed.sampled() ? e.timed.inWindows() : "in the whole run") +
                ", " + humanTime(double(e.regionOverlappedNs)) + " of it alongside other streams";
        r["regionStream"] = e.regionStream;
        r["regionStreamBusyMicros"] = double(e.regionBusyNs) / 1e3;
        r["regionStreamOverlappedMicros"] = double(e.regionOverlappedNs) / 1e3;
      }
      if (e.allocCalls) {
        r["allocations"] = e.allocCalls;
        r["allocatedBytes"] = e.allocBytes;
        r["allocatedBytesBefore"] = e.allocBytesBefore;
      }
      if (e.allocCalls && f.ruleId == "SL303") {
        said += "; " + std::to_string(e.allocCalls) +
                (e.allocCalls == 1 ? " device allocation" : " device allocations") +
                ": the allocator's pool grew by " + mib(e.allocBytes) + " here, on top of the " +
                mib(e.allocBytesBefore) + " the process had allocated before";
      }
    } else {
      r["status"] = "not exercised";
      said = e.fileRan ? "not exercised: the run never reached this line"
                       : "not exercised: this file issued no CUDA calls in the run";
    }
    if (f.ruleId == "SL501") {
      Drain d = measureDrain(run, f);
      if (d.drainNs) {
        r["status"] = "measured";
        r["intervalOperations"] = d.ops;
        r["hostQueueMicros"] = double(d.hostNs) / 1e3;
        r["drainMicros"] = double(d.drainNs) / 1e3;
        said = (d.timed.sampled() ? d.timed.inWindows() + ", " : "") +
               "the timed lines queued " + std::to_string(d.ops) + " GPU operations in " +
               humanTime(double(d.hostNs)) + ", and the GPU was busy with them for another " +
               humanTime(double(d.drainNs)) + " after the host moved on: the clock missed that";
        if (!d.paidAt.empty()) { said += "; the wait was paid at " + d.paidAt; r["paidAt"] = d.paidAt; }
        if (!d.paidNote.path.empty()) f.notes.push_back(d.paidNote);
        d.timed.describe(r);
        cost = std::max(cost, double(d.drainNs) / 1e3);
      } else if (d.sampledWorkCalls && !d.timedWorkCalls) {
        r["status"] = "not timed";
        said = "GPU work not timed: the interval's " + std::to_string(d.sampledWorkCalls) +
               " calls that queue GPU work were recorded, but none fell in a timed window "
               "(sampled GPU timing), so how long the GPU ran on is unknown";
      }
    }
    std::vector<std::string> by;
    for (const auto& m : measured)
      if (m.loc.line == f.loc.line && samePath(m.path, f.path)) {
        // One line can hold several findings of a rule (SL901 for each API that blocked there).
        if (std::find(by.begin(), by.end(), m.ruleId) == by.end()) by.push_back(m.ruleId);
        cost = std::max(cost, m.properties.value("costMicros", 0.0));
      }
    if (const Finding* race = confirmingRace(f, measured)) {
      std::string kind = race->properties.value("kind", std::string("race"));
      r["confirmedBy"] = {{"rule", race->ruleId}, {"kind", kind}, {"path", race->path}, {"line", race->loc.line},
                          {"occurrences", race->properties.value("occurrences", 1)}};
      std::string confirmed = "confirmed at runtime: the run raced here (SL904 " + kind + " at " + race->path +
                              ":" + std::to_string(race->loc.line) + ")";
      // A line that issues no CUDA call (a `del`) was still part of the race the run saw.
      if (r["status"] == "measured") said += "; " + confirmed;
      else { said = confirmed; r["status"] = "confirmed"; }
    }
    if (!by.empty()) {
      r["measuredBy"] = by;
      std::string list;
      for (const auto& id : by) list += (list.empty() ? "" : ", ") + id;
      said += " (see " + list + ")";
    }
    r["costMicros"] = cost;
    f.properties["runtime"] = r;
    f.message += (r["status"] == "measured" ? " — measured: " : " — ") + said;
  }
}

namespace {
double costOf(const Finding& f) {
  if (f.properties.contains("costMicros")) return f.properties["costMicros"].get<double>();
  if (f.properties.contains("runtime")) return f.properties["runtime"].value("costMicros", 0.0);
  return -1;
}
}  // namespace

// Measured set-up costs (SL901 `phase`) after the per-step ones, library code after the user's.
static int tierOf(const Finding& f) {
  return (f.properties.value("phase", std::string()) == "set-up" ? 2 : 0) +
         (f.properties.value("insideLibrary", false) ? 1 : 0);
}

void rankByCost(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (tierOf(a) != tierOf(b)) return tierOf(a) < tierOf(b);
    return costOf(a) > costOf(b);
  });
}

}  // namespace sl::runtime
