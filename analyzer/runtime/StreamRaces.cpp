// SL904: happens-before over a process's streams, from the recorded calls, and the accesses of
// its launches, copies and sets to device memory (RaceMemory.h), checked FastTrack-style.
//
// Clocks. Each stream has a vector clock (what its next operation is ordered after); the host has
// one for the whole process (a sync on any thread orders work queued later by any thread: this
// can hide a race between threads, never invent one). An operation on stream s joins the host's
// clock (host program order), then ticks s. Edges: event record copies s's clock into the event;
// a stream wait joins the event's clock into the stream; stream/event/device syncs, successful
// polls, blocking copies and cudaFree (an implicit device sync) join into the host; the legacy
// default stream waits for every blocking stream and they for it.
//
// Accesses. A launch's parameter words tell where it reads or writes, not which: the first
// access to a unit after its allocation is its producer (a write); later launches count as
// reads, so read-only sharing is never a race (and an in-place update on another stream is not
// seen). Copies and sets are exact: the destination is written, the source read.
// Races: (a) a write and an access on another stream, unordered: a missing wait, or a missing
// join when the later access is on the main stream; (b) a unit freed while an access on another
// stream was unordered with the producer of the unit that reuses its memory: a missing
// record_stream.
//
// Lost records (GapRecord): nothing is judged from a call inside a gap, and at its end every
// stream, event and the host are joined (a barrier), so no pair across it is reported either.
//
// The caching allocator's own events (recorded when a block used on other streams is freed, and
// polled before its memory is handed out again) order that reuse, nothing else: the program did
// not ask for them, and a poll that happened to succeed in this run would hide its missing join
// (a side stream's gradients read by the optimizer). Their successful polls join a clock of their
// own (allocatorKnows_), which only the missing-record_stream check reads.
//
// Left-over argument words. A kernel's by-value struct can hold bytes nobody set (TensorIterator's
// OffsetCalculator past the tensor's dimensions): the host stack's earlier content, often an
// earlier launch's arguments, pointers included. A launch that names a block freed before it was
// made shows such leftovers for certain: the word is the one the thread's last launch naming that
// block passed. Its other words that this earlier launch also passed, still in the same blocks,
// are taken for leftovers too and not checked (a real use of the same tensor by both launches is
// then missed; `leftOverWords` counts them).
#include "runtime/StreamRaces.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>
#include <set>
#include <unordered_map>

#include "runtime/RaceMemory.h"
#include "runtime/RuntimeRules.h"

namespace sl::runtime {

namespace {

using Vc = std::vector<uint32_t>;
void join(Vc& a, const Vc& b) {
  if (a.size() < b.size()) a.resize(b.size(), 0);
  for (size_t i = 0; i < b.size(); ++i) a[i] = std::max(a[i], b[i]);
}
uint32_t at(const Vc& v, int i) { return size_t(i) < v.size() ? v[i] : 0; }

enum class Kind { MissingWait, MissingJoin, MissingRecordStream };
const char* kindName(Kind k) {
  return k == Kind::MissingWait ? "missing-wait" : k == Kind::MissingJoin ? "missing-join" : "missing-record-stream";
}

struct Access {
  int stream = -1;
  uint32_t epoch = 0;
  int call = -1;
};
struct Shadow {
  Access write;
  std::vector<Access> reads;  // the last read per stream
  bool touched = false;
  bool unknown = false;  // its producer may be a launch recorded without its footprint (sampling)
  int producerCall = -1;
};

struct Race {
  Kind kind;
  int callX, callY, streamX, streamY, unit;
  bool xWrites;  // the earlier access is the unit's write (else a read)
};

constexpr uint64_t kLegacy = 0;

class Checker {
 public:
  Checker(const ProcessLog& log, const ProcessTimeline& t) : log_(log), t_(t), mem_(log, t) {}

  bool run(RaceCheckSummary& summary, std::string& why) {
    if (!mem_.usable()) { why = mem_.error(); return false; }
    prepareGaps(summary);
    for (size_t i = 0; i < t_.calls.size(); ++i)
      if (const HostCall c = t_.calls[i]; slog::apiClass(c.api) == slog::ApiClass::Wait && c.ret == 0) waitedEvents_.insert(c.a0);
    for (size_t i = 0; i < t_.calls.size(); ++i) {
      const HostCall& c = t_.calls[i];
      while (gapAt_ < gaps_.size() && gaps_[gapAt_].second <= c.enterNs) barrier(), ++gapAt_;
      inGap_ = gapAt_ < gaps_.size() && gaps_[gapAt_].first <= c.enterNs;
      call(int(i), c);
    }
    summary.accesses += accesses_;
    summary.unrecordedLaunches += unrecorded_;
    summary.unknownBlocks += unknownUnits_;
    summary.leftOverWords += leftOver_;
    return true;
  }
  const std::vector<Race>& races() const { return races_; }
  std::string streamLabel(int s) const;
  const RaceMemory& memory() const { return mem_; }
  int producerOf(int unit) const {
    auto it = shadow_.find(unit);
    return it == shadow_.end() ? -1 : it->second.producerCall;
  }

 private:
  int stream(uint64_t h) {
    if (h == 1) h = kLegacy;  // cudaStreamLegacy
    auto [it, fresh] = index_.try_emplace(h, int(handles_.size()));
    if (fresh) { handles_.push_back(h); vc_.emplace_back(); }
    return it->second;
  }
  bool blocking(int s) {
    if (size_t(s) < blockingCache_.size() && blockingCache_[s] >= 0) return blockingCache_[s];
    if (blockingCache_.size() <= size_t(s)) blockingCache_.resize(s + 1, -1);
    blockingCache_[s] = int8_t(blockingOf(s));
    return blockingCache_[s] != 0;
  }
  bool blockingOf(int s) const {
    uint64_t h = handles_[s];
    if (h == kLegacy) return false;
    if (h == 2) return true;  // cudaStreamPerThread behaves as a blocking stream
    auto it = createdFlags_.find(h);
    return it != createdFlags_.end() && !(it->second & 1);  // unknown streams: non-blocking
  }
  // An operation queued on stream s: ordered after what the host knows and, for the legacy
  // stream and blocking streams, after each other. Returns s's clock after the tick.
  const Vc& op(int s) {
    join(vc_[s], host_);
    if (handles_[s] == kLegacy) {
      for (size_t b = 0; b < vc_.size(); ++b)
        if (int(b) != s && blocking(int(b))) join(vc_[s], vc_[b]);
    } else if (blocking(s) && index_.count(kLegacy)) {
      join(vc_[s], vc_[index_.at(kLegacy)]);
    }
    if (vc_[s].size() <= size_t(s)) vc_[s].resize(s + 1, 0);
    vc_[s][s]++;
    return vc_[s];
  }
  void barrier() {
    Vc all = host_;
    for (const auto& v : vc_) join(all, v);
    host_ = all;
    for (auto& v : vc_) join(v, all);
    for (auto& [e, v] : events_) join(v, all);
  }
  void prepareGaps(RaceCheckSummary& summary) {
    std::vector<std::pair<uint64_t, uint64_t>> g;
    for (const auto& x : log_.gaps) g.emplace_back(x.fromNs, x.toNs);
    std::sort(g.begin(), g.end());
    for (const auto& x : g) {
      if (!gaps_.empty() && x.first <= gaps_.back().second) gaps_.back().second = std::max(gaps_.back().second, x.second);
      else gaps_.push_back(x);
    }
    summary.gaps += gaps_.size();
    for (const auto& x : gaps_) summary.gapNs += x.second - x.first;
  }
  void call(int i, const HostCall& c);
  void launch(int i, const HostCall& c, int s, const Vc& clock, const std::vector<uint64_t>& words);
  void access(int i, int s, const Vc& clock, uint64_t addr, uint64_t ns, bool write);
  void accessUnit(int i, int s, const Vc& clock, int u, bool write);
  // The caching allocator's own event (Timeline.h cachingAllocator): recorded by it, and no
  // stream ever waits for it.
  bool allocatorEvent(const HostCall& c) const {
    if (!c.cachingAllocator || waitedEvents_.count(c.a0)) return false;
    auto it = allocatorRecorded_.find(c.a0);
    return it != allocatorRecorded_.end() && it->second;
  }
  void checkReuse(int unit, int i, int s, const Vc& clock);
  // A join is what a side stream's work needs before the default stream (where a program's main
  // line of work runs) uses its result; any other missing order is a missing wait.
  bool isDefault(int s) const { return handles_[s] == kLegacy || handles_[s] == 2; }
  bool unordered(const Access& x, int s, const Vc& clock) const {
    return x.call >= 0 && x.stream != s && at(clock, x.stream) < x.epoch;
  }
  void report(Kind k, const Access& x, int callY, int streamY, int unit, bool xWrites) {
    races_.push_back({k, x.call, callY, x.stream, streamY, unit, xWrites});
  }

  const ProcessLog& log_;
  const ProcessTimeline& t_;
  RaceMemory mem_;
  std::unordered_map<uint64_t, int> index_;
  std::vector<uint64_t> handles_;
  std::vector<Vc> vc_;
  Vc host_;
  std::unordered_map<uint64_t, Vc> events_;
  std::map<uint64_t, uint64_t> createdFlags_;
  std::vector<int8_t> blockingCache_;  // per stream: -1 not known yet (reset when a stream is created)
  std::map<uint64_t, int> createdAt_;
  std::unordered_map<int, Shadow> shadow_;
  std::multimap<uint64_t, int> live_;  // units with accesses, by start address
  std::vector<std::pair<uint64_t, uint64_t>> gaps_;
  size_t gapAt_ = 0;
  bool inGap_ = false;
  size_t accesses_ = 0;
  uint64_t lastUnrecordedNs_ = 0;  // the last launch recorded without its footprint
  size_t unrecorded_ = 0, unknownUnits_ = 0;
  // A block allocated this little after a launch without footprint is still not judged: the
  // allocator's clock is not the recorder's (RaceMemory.cpp).
  static constexpr uint64_t kUnknownSlackNs = 50000;
  std::vector<Race> races_;
  // Events some stream waits for (read before the sweep), and per event whether its last record
  // was the caching allocator's.
  std::set<uint64_t> waitedEvents_;
  std::unordered_map<uint64_t, bool> allocatorRecorded_;
  Vc allocatorKnows_;  // what the allocator's successful polls of its own events showed done
  // Per thread: each word its launches passed, with the last such launch and the unit it named.
  struct Named {
    int call = -1, unit = -1;
  };
  std::unordered_map<uint32_t, std::unordered_map<uint64_t, Named>> named_;
  size_t leftOver_ = 0;
};

void Checker::call(int i, const HostCall& c) {
  using C = slog::ApiClass;
  using A = slog::Api;
  if (c.ret != 0) return;
  switch (slog::apiClass(c.api)) {
    case C::StreamLife:
      if (c.api != A::cudaStreamDestroy && c.a0) {
        createdFlags_[c.a0] = c.api == A::cudaStreamCreate ? 0 : c.a1;
        blockingCache_.clear();
        createdAt_[c.a0] = i;
        stream(c.a0);
      }
      break;
    case C::Sync:
      if (c.api == A::cudaDeviceSynchronize || c.api == A::cuCtxSynchronize) {
        for (const auto& v : vc_) join(host_, v);
      } else if (c.api == A::cudaStreamSynchronize || c.api == A::cuStreamSynchronize) {
        join(host_, vc_[stream(c.stream)]);
      } else if (auto e = events_.find(c.a0); e != events_.end()) {
        join(allocatorEvent(c) ? allocatorKnows_ : host_, e->second);
      }
      break;
    case C::Query:  // only successful polls are in the timeline: the work is done
      if (c.api == A::cudaEventQuery) {
        if (auto e = events_.find(c.a0); e != events_.end()) join(allocatorEvent(c) ? allocatorKnows_ : host_, e->second);
      } else {
        join(host_, vc_[stream(c.stream)]);
      }
      break;
    case C::Record: {
      int s = stream(c.stream);
      join(vc_[s], host_);
      events_[c.a0] = vc_[s];
      allocatorRecorded_[c.a0] = c.cachingAllocator;
      break;
    }
    case C::Wait: {
      int s = stream(c.stream);
      if (auto e = events_.find(c.a0); e != events_.end()) join(vc_[s], e->second);
      break;
    }
    case C::Free:  // cudaFree waits for the whole device first
      for (const auto& v : vc_) join(host_, v);
      break;
    case C::Copy:
    case C::CopyAsync:
    case C::Set:
    case C::SetAsync: {
      auto cls = slog::apiClass(c.api);
      bool sync = cls == C::Copy || cls == C::Set;
      int s = stream(c.stream);
      Vc clock = op(s);
      access(i, s, clock, c.a0, c.enterNs, true);
      if (cls == C::Copy || cls == C::CopyAsync) access(i, s, clock, c.a1, c.enterNs, false);
      if (sync) join(host_, vc_[s]);  // the host waited for it
      break;
    }
    case C::Launch: {
      int s = stream(c.stream);
      Vc clock = op(s);
      auto f = log_.footprints.find(c.corr);
      if (f == log_.footprints.end()) {  // outside a --sanitize-sample window (lost ones are gaps)
        if (!inGap_) lastUnrecordedNs_ = c.enterNs, ++unrecorded_;
        break;
      }
      launch(i, c, s, clock, f->second.words);
      break;
    }
    case C::Collective: {  // NCCL: exact ranges; the receive buffer is written, the send one read
      int s = stream(c.stream);
      Vc clock = op(s);
      auto info = log_.collectives.find(c.corr);
      uint64_t n = info && info->nranks > 0 ? uint64_t(info->nranks) : 1;
      uint64_t bytes = c.a2 * slog::ncclTypeBytes(uint32_t(c.kind));
      uint64_t sendBytes = bytes, recvBytes = bytes;
      if (c.api == A::ncclAllGather) recvBytes = bytes * n;
      if (c.api == A::ncclReduceScatter) sendBytes = bytes * n;
      if (c.api == A::ncclAlltoAll) sendBytes = recvBytes = bytes * n;
      if (c.a0 && sendBytes) access(i, s, clock, c.a0, c.enterNs, false);
      if (c.a1 && recvBytes) access(i, s, clock, c.a1, c.enterNs, true);
      break;
    }
    case C::GraphLaunch:
      op(stream(c.stream));  // one unit: its own footprint is not recorded
      break;
    default: break;
  }
}

// A launch's words: each resolved to its unit, the left-over ones (see the top) set aside, the
// rest checked as reads (or as the producer, for a unit's first access).
void Checker::launch(int i, const HostCall& c, int s, const Vc& clock, const std::vector<uint64_t>& words) {
  if (inGap_) return;
  std::vector<int> units(words.size(), -1);
  for (size_t k = 0; k < words.size(); ++k)
    if (words[k]) units[k] = mem_.find(words[k], c.enterNs, handles_[s]);
  auto& named = named_[c.tid];
  std::vector<bool> leftOver(words.size(), false);
  for (size_t k = 0; k < words.size(); ++k) {
    if (units[k] >= 0) continue;
    auto it = named.find(words[k]);
    if (it == named.end() || it->second.unit < 0) continue;
    const MemUnit& dead = mem_.unit(it->second.unit);
    if (!dead.freeNs || dead.freeNs >= c.enterNs) continue;  // not freed before this launch
    // The words of the thread's last launch that named the dead block, still in the same units.
    auto before = log_.footprints.find(t_.calls[size_t(it->second.call)].corr);
    if (before == log_.footprints.end()) continue;
    for (size_t j = 0; j < words.size(); ++j) {
      if (j == k || units[j] < 0 || leftOver[j]) continue;
      const auto& bw = before->second.words;
      if (std::find(bw.begin(), bw.end(), words[j]) == bw.end()) continue;
      auto n = named.find(words[j]);
      if (n != named.end() && n->second.unit == units[j]) leftOver[j] = true, ++leftOver_;
    }
  }
  for (size_t k = 0; k < words.size(); ++k) {
    if (units[k] < 0 || leftOver[k]) continue;
    accessUnit(i, s, clock, units[k], false);
    named[words[k]] = {i, units[k]};
  }
}

void Checker::access(int i, int s, const Vc& clock, uint64_t addr, uint64_t ns, bool write) {
  if (inGap_ || !addr) return;
  int u = mem_.find(addr, ns, handles_[s]);
  if (u < 0) return;
  accessUnit(i, s, clock, u, write);
}

void Checker::accessUnit(int i, int s, const Vc& clock, int u, bool write) {
  ++accesses_;
  Shadow& sh = shadow_[u];
  if (sh.unknown) return;
  Access me{s, at(clock, s), i};
  if (!sh.touched) {  // the producer: first access after the allocation
    sh.touched = true;
    if (lastUnrecordedNs_ && lastUnrecordedNs_ + kUnknownSlackNs >= mem_.unit(u).allocNs) {
      sh.unknown = true;  // an unrecorded launch since its allocation may have produced it
      ++unknownUnits_;
      return;
    }
    sh.producerCall = i;
    write = true;
    checkReuse(u, i, s, clock);
  }
  // Units are looked up again after checkReuse (it may erase other shadows, never this one).
  Shadow& cur = shadow_[u];
  if (unordered(cur.write, s, clock))
    report(isDefault(s) && !isDefault(cur.write.stream) ? Kind::MissingJoin : Kind::MissingWait, cur.write, i, s, u, true);
  if (write) {
    for (const Access& r : cur.reads)
      if (unordered(r, s, clock)) report(Kind::MissingWait, r, i, s, u, false);
    cur.write = me;
    cur.reads.clear();
  } else {
    bool found = false;
    for (Access& r : cur.reads)
      if (r.stream == s) r = me, found = true;
    if (!found) cur.reads.push_back(me);
  }
}

// A new unit's producer against every older unit its memory overlaps: the allocator handed that
// memory over, and any access to the old unit not ordered before this write races with it.
void Checker::checkReuse(int unit, int i, int s, const Vc& producerClock) {
  // The allocator hands memory out only once its polls showed the recorded streams' uses done.
  Vc clock = producerClock;
  join(clock, allocatorKnows_);
  const MemUnit& nu = mem_.unit(unit);
  std::vector<std::multimap<uint64_t, int>::iterator> old;
  // Live units do not overlap each other (a producer retires the older ones it overlaps), so the
  // candidates start at the last unit that begins at or below nu.lo.
  auto from = live_.upper_bound(nu.lo);
  if (from != live_.begin()) --from;
  while (from != live_.begin() && std::prev(from)->first == from->first) --from;
  for (auto it = from; it != live_.end() && it->first < nu.hi; ++it) {
    const MemUnit& ou = mem_.unit(it->second);
    if (it->second == unit || ou.hi <= nu.lo || ou.allocNs > nu.allocNs) continue;
    old.push_back(it);
  }
  for (auto it : old) {
    const Shadow& sh = shadow_[it->second];
    for (const Access& x : sh.reads)
      if (unordered(x, s, clock)) report(Kind::MissingRecordStream, x, i, s, it->second, false);
    if (unordered(sh.write, s, clock)) report(Kind::MissingRecordStream, sh.write, i, s, it->second, true);
    shadow_.erase(it->second);
    live_.erase(it);
  }
  live_.emplace(nu.lo, unit);
}

std::string Checker::streamLabel(int s) const {
  uint64_t h = handles_[s];
  if (h == kLegacy) return "the default stream";
  if (h == 2) return "the per-thread default stream";
  auto it = createdAt_.find(h);
  if (it != createdAt_.end()) {
    int loc = t_.reportLoc(t_.calls[it->second]);
    if (loc >= 0 && t_.locations[loc].line) {  // the file's name is enough to tell streams apart
      const std::string& path = t_.locations[loc].path;
      return "the stream created at " + path.substr(path.rfind('/') + 1) + ":" +
             std::to_string(t_.locations[loc].line);
    }
  }
  char buf[48];
  snprintf(buf, sizeof buf, "stream 0x%llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string where(const ProcessTimeline& t, int call) {
  int loc = call >= 0 ? t.reportLoc(t.calls[call]) : -1;
  if (loc < 0) return "an unknown line";
  const SourceLoc& l = t.locations[loc];
  return l.path + (l.line ? ":" + std::to_string(l.line) : "");
}

bool pythonAt(const ProcessTimeline& t, int call) {
  int loc = call >= 0 ? t.reportLoc(t.calls[call]) : -1;
  return loc >= 0 && t.locations[loc].python;
}

// The fix, in the language of the line that needs it.
std::string fixFor(Kind k, bool python, const std::string& x, const std::string& y, bool collective) {
  switch (k) {
    case Kind::MissingWait:
      return python ? "make " + y + " wait before this use: `side.wait_stream(torch.cuda.current_stream())` "
                      "(or `ev.record()` after the write and `side.wait_event(ev)`)"
                    : "record an event on " + x + " after the write and make " + y +
                      " wait for it before this launch: `cudaEventRecord(ev, producer); "
                      "cudaStreamWaitEvent(consumer, ev, 0);` (LibTorch: `ev.record(producer); ev.block(consumer);`)";
    case Kind::MissingJoin:
      if (collective)
        return python ? "wait for the collective before using its result: `work.wait()` on the handle "
                        "`async_op=True` returned (or `torch.cuda.current_stream().wait_stream(...)`)"
                      : "wait for the collective before using its result: `work->wait()` (c10d), or an "
                        "event recorded on its stream after it and `cudaStreamWaitEvent` before this launch";
      return python ? "join before this line: `torch.cuda.current_stream().wait_stream(side)` after the side-stream region"
                    : "join before this launch: `cudaEventRecord(ev, side); cudaStreamWaitEvent(main, ev, 0);`";
    case Kind::MissingRecordStream:
      return python ? "tell the allocator about the side-stream use: `t.record_stream(side)` after it (or keep a "
                      "reference until the streams join)"
                    : "tell the allocator about the side-stream use: `t.record_stream(side)` (LibTorch: "
                      "`c10::cuda::CUDACachingAllocator::recordStream(t.storage().data_ptr(), side)`), or join first";
  }
  return "";
}

std::vector<Finding> findingsOf(const Checker& k, const ProcessTimeline& t) {
  struct Site {
    Race first;
    size_t count = 0;
  };
  std::map<std::tuple<int, std::string, std::string, int, int>, Site> sites;
  for (const Race& r : k.races()) {
    auto key = std::make_tuple(int(r.kind), where(t, r.callX), where(t, r.callY), r.streamX, r.streamY);
    Site& s = sites[key];
    if (!s.count) s.first = r;
    s.count++;
  }
  std::vector<Finding> out;
  for (const auto& [key, site] : sites) {
    const Race& r = site.first;
    const MemUnit& u = k.memory().unit(r.unit);
    int allocCall = u.allocCall >= 0 ? u.allocCall : k.producerOf(r.unit);
    std::string sx = k.streamLabel(r.streamX), sy = k.streamLabel(r.streamY);
    std::string x = where(t, r.callX), y = where(t, r.callY);
    std::string what = (u.block ? "a tensor of " : "an allocation of ") + humanBytes(u.hi - u.lo) +
                       (allocCall >= 0 ? std::string(u.block ? " (first written at " : " (allocated at ") +
                                             where(t, allocCall) + ")" : "");
    Finding f;
    f.ruleId = "SL904";
    int placeCall = r.kind == Kind::MissingRecordStream ? r.callX : r.callY;
    int loc = t.reportLoc(t.calls[placeCall]);
    placeAt(f, t, loc);
    std::string times = site.count > 1 ? " (" + std::to_string(site.count) + " times in the run)" : "";
    bool python = pythonAt(t, placeCall);
    bool collectiveX = slog::apiClass(t.calls[r.callX].api) == slog::ApiClass::Collective;
    switch (r.kind) {
      case Kind::MissingWait:
        f.message = "missing wait: this line uses on " + sy + " " + what + " that " + sx + (r.xWrites ? " writes at " : " reads at ") + x +
                    ", and nothing orders the two" + times + ": " + sy + " can run before " + sx +
                    " is done with it, and read or overwrite it early; " + fixFor(r.kind, python, sx, sy, collectiveX);
        break;
      case Kind::MissingJoin:
        f.message = "missing join: this line uses on " + sy + " " + what + " that " + sx + " wrote at " + x +
                    ", and " + sy + " never waited for " + sx + times + ": it can read the tensor before the "
                    "write is done; " + fixFor(r.kind, python, sx, sy, collectiveX);
        break;
      case Kind::MissingRecordStream:
        f.message = "missing record_stream: " + what + " is used here on " + sx + ", then freed; the allocator "
                    "handed its memory to new work on " + sy + " at " + y + " while this use could still be "
                    "running" + times + " (the allocator only waits for the stream it allocated on); " +
                    fixFor(r.kind, python, sx, sy, collectiveX);
        break;
    }
    f.notes.clear();
    int otherCall = placeCall == r.callX ? r.callY : r.callX;
    int otherLoc = t.reportLoc(t.calls[otherCall]);
    if (otherLoc >= 0)
      f.notes.push_back({t.locations[otherLoc].path, Loc{t.locations[otherLoc].line, 1},
                         "the other access, on " + (otherCall == r.callX ? sx : sy)});
    f.properties = {{"kind", kindName(r.kind)}, {"streams", {sx, sy}}, {"lines", {x, y}},
                    {"bytes", u.hi - u.lo}, {"occurrences", site.count}, {"costMicros", 0.0},
                    {"allocatedAt", allocCall >= 0 ? where(t, allocCall) : ""}};
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

std::vector<Finding> streamRaces(const std::vector<ProcessLog>& logs,
                                 const std::vector<ProcessTimeline>& timelines, RaceCheckSummary& summary) {
  std::vector<Finding> out;
  for (size_t p = 0; p < logs.size() && p < timelines.size(); ++p) {
    if (!logs[p].sanitize) continue;
    // Chunks past the log's size cap are gone without gap records: an unseen wait would read
    // as a race, so such a log is not judged at all.
    // The same for chunks a failed write lost (a full disk).
    if (logs[p].trailer && (logs[p].trailer->cappedChunks || logs[p].trailer->unwrittenChunks)) {
      summary.notJudged.push_back(logs[p].path + (logs[p].trailer->cappedChunks
                                                      ? ": the log reached its size cap (SL_MAX_LOG_MB) and lost records"
                                                      : ": writing the log failed and lost records"));
      continue;
    }
    Checker k(logs[p], timelines[p]);
    std::string why;
    if (!k.run(summary, why)) {
      summary.notJudged.push_back(logs[p].path + ": " + why);
      continue;
    }
    summary.processes++;
    auto f = findingsOf(k, timelines[p]);
    out.insert(out.end(), f.begin(), f.end());
  }
  return out;
}

}  // namespace sl::runtime
