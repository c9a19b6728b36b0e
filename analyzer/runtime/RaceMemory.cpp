#include "runtime/RaceMemory.h"

#include <algorithm>
#include <cstdio>

namespace sl::runtime {

namespace {

// The allocator's clock is CLOCK_REALTIME in microseconds (and the Python side calibrated it
// against one fresh allocation); an access can be judged against a block a little more than that
// early or late.
constexpr uint64_t kSlackNs = 2000;
// How far apart the two clocks can be (find: which of two blocks an access belongs to).
constexpr uint64_t kSkewNs = 50000;

bool isAlloc(slog::Api a) {
  auto c = slog::apiClass(a);
  return c == slog::ApiClass::Alloc || c == slog::ApiClass::AllocAsync;
}
bool isDeviceAlloc(slog::Api a) {  // pinned host memory is not a device unit
  return isAlloc(a) && a != slog::Api::cudaMallocHost && a != slog::Api::cudaHostAlloc;
}
bool isFree(slog::Api a) {
  auto c = slog::apiClass(a);
  return (c == slog::ApiClass::Free || c == slog::ApiClass::FreeAsync) && a != slog::Api::cudaFreeHost;
}

// torch's caching allocator carves tensors out of large cudaMalloc segments: without its block
// trace a segment would stand for every tensor in it, and unrelated tensors would look shared.
bool usesCachingAllocator(const ProcessLog& log) {
  for (const auto& m : log.modules)
    if (m.path.find("libc10_cuda.so") != std::string::npos) return true;
  return false;
}

}  // namespace

RaceMemory::RaceMemory(const ProcessLog& log, const ProcessTimeline& t) {
  if (!log.blocks.empty()) fromBlocks(log, t);
  else if (log.header.pythonVersion && !t.calls.empty())  // log.calls is freed once t is built
    error_ = "a Python process without the caching allocator's trace (did it end with os._exit, or "
             "run without `streamlint run --sanitize`?): its launches cannot be placed in tensors";
  else if (usesCachingAllocator(log))
    error_ = "a LibTorch program without the caching allocator's trace (a LibTorch whose "
             "torch::cuda::_record_memory_history streamlint does not know, or it ended without exit()): "
             "its tensors live in the allocator's segments, so its launches cannot be placed in tensors";
  else fromAllocations(t);
  for (size_t i = 0; i < units_.size(); ++i) {
    byAlloc_.push_back(int(i));
    if (units_[i].freeNs) byFree_.push_back(int(i));
  }
  auto slack = [](const MemUnit& u) { return u.block ? kSlackNs : 0; };
  // Born once the call is within the slack after the allocation; dead once it is more than the
  // slack past the free.
  std::stable_sort(byAlloc_.begin(), byAlloc_.end(), [&](int a, int b) {
    return units_[a].allocNs - std::min(units_[a].allocNs, slack(units_[a])) <
           units_[b].allocNs - std::min(units_[b].allocNs, slack(units_[b]));
  });
  std::stable_sort(byFree_.begin(), byFree_.end(), [&](int a, int b) {
    return units_[a].freeNs + slack(units_[a]) < units_[b].freeNs + slack(units_[b]);
  });
  if (blocks_) calibrate(log, t);
  touched_.assign(units_.size(), false);
}

// The allocator's clock agrees with the recorder's only to within a few hundred microseconds
// (segment anchors spread by ~170 us on the H200), more than the time between a block's
// allocation and its first launch. So the trace is moved by the shift that places the most
// launch words of the run's beginning inside a live block: too late and fresh blocks are not born
// at their first launch, too early and blocks die before their last.
void RaceMemory::calibrate(const ProcessLog& log, const ProcessTimeline& t) {
  constexpr size_t kSample = 20000;
  constexpr int64_t kStepNs = 2000, kSteps = 200;  // +-400 us
  std::vector<std::pair<uint64_t, uint64_t>> sample;  // (ns, word)
  for (const auto& c : t.calls) {
    if (slog::apiClass(c.api) != slog::ApiClass::Launch) continue;
    auto f = log.footprints.find(c.corr);
    if (f == log.footprints.end()) continue;
    for (uint64_t w : f->second.words) sample.emplace_back(c.enterNs, w);
    if (sample.size() >= kSample) break;
  }
  if (sample.empty()) return;
  int64_t best = 0;
  size_t bestHits = 0, bestRun = 0, run = 0;
  int64_t runStart = 0;
  for (int64_t k = -kSteps; k <= kSteps; ++k) {
    int64_t d = k * kStepNs;  // the trace moved by d = the accesses moved by -d
    resetSweep();
    size_t hits = 0;
    for (const auto& [ns, w] : sample) hits += find(w, uint64_t(int64_t(ns) - d), kAnyStream) >= 0;
    if (hits > bestHits) { bestHits = hits; run = 0; bestRun = 0; }
    if (hits == bestHits) {  // the middle of the best plateau
      if (run == 0) runStart = d;
      ++run;
      if (run > bestRun) { bestRun = run; best = runStart + int64_t(run - 1) * kStepNs / 2; }
    } else {
      run = 0;
    }
  }
  resetSweep();
  shiftNs_ = best;
  for (auto& u : units_) {
    u.allocNs = uint64_t(int64_t(u.allocNs) + best);
    if (u.freeNs) u.freeNs = uint64_t(int64_t(u.freeNs) + best);
  }
  traceBeginNs_ = traceBeginNs_ ? uint64_t(int64_t(traceBeginNs_) + best) : 0;
}

void RaceMemory::resetSweep() {
  nextAlloc_ = nextFree_ = 0;
  live_.clear();
  replaced_.clear();
}

void RaceMemory::fromBlocks(const ProcessLog& log, const ProcessTimeline& t) {
  blocks_ = true;
  // Realtime -> monotonic: exact anchors first (a segment_alloc is the cudaMalloc the log holds,
  // same address), else the header's pair.
  int64_t offset = int64_t(log.header.startMonoNs) - int64_t(log.header.startRealtimeNs);
  std::vector<int64_t> anchors;
  for (const auto& b : log.blocks) {
    if (b.action != slog::BlockAction::SegmentAlloc) continue;
    for (const auto& c : t.calls)
      if (isAlloc(c.api) && c.a0 == b.addr && c.ret == 0) {
        anchors.push_back(int64_t(c.exitNs) - int64_t(b.realtimeNs));
        break;
      }
  }
  if (!anchors.empty()) {
    std::nth_element(anchors.begin(), anchors.begin() + anchors.size() / 2, anchors.end());
    offset = anchors[anchors.size() / 2];
  }
  auto mono = [&](uint64_t rt) { return uint64_t(int64_t(rt) + offset); };
  std::map<uint64_t, int> open;  // addr -> unit not yet freed
  for (const auto& b : log.blocks) {
    switch (b.action) {
      case slog::BlockAction::Snapshot:
        traceBeginNs_ = std::max(traceBeginNs_, mono(b.realtimeNs));
        break;
      case slog::BlockAction::Alloc: {
        MemUnit u;
        u.lo = b.addr;
        u.hi = b.addr + b.size;
        u.allocNs = mono(b.realtimeNs);
        u.stream = b.stream;
        u.block = true;
        open[b.addr] = int(units_.size());
        units_.push_back(u);
        break;
      }
      case slog::BlockAction::FreeRequested: {
        auto it = open.find(b.addr);
        if (it == open.end()) break;
        units_[it->second].freeNs = mono(b.realtimeNs);
        open.erase(it);
        break;
      }
      default: break;
    }
  }
}

void RaceMemory::fromAllocations(const ProcessTimeline& t) {
  std::map<uint64_t, int> open;
  for (size_t i = 0; i < t.calls.size(); ++i) {
    const HostCall& c = t.calls[i];
    if (c.ret != 0) continue;
    if (isDeviceAlloc(c.api) && c.a0 && c.a2) {
      MemUnit u;
      u.lo = c.a0;
      u.hi = c.a0 + c.a2;
      u.allocNs = c.enterNs;
      u.allocCall = int(i);
      open[c.a0] = int(units_.size());
      units_.push_back(u);
    } else if (isFree(c.api)) {
      auto it = open.find(c.a0);
      if (it == open.end()) continue;
      units_[it->second].freeNs = c.enterNs;
      open.erase(it);
    }
  }
}

void RaceMemory::advance(uint64_t ns) {
  while (nextAlloc_ < byAlloc_.size()) {
    int i = byAlloc_[nextAlloc_];
    const MemUnit& u = units_[i];
    uint64_t born = u.allocNs - std::min(u.allocNs, u.block ? kSlackNs : 0);
    if (born > ns) break;
    auto [at, fresh] = live_.try_emplace(u.lo, i);  // a unit born later at the same address
    if (!fresh) replaced_[u.lo] = at->second, at->second = i;  // replaces the older one
    ++nextAlloc_;
  }
  while (nextFree_ < byFree_.size()) {
    int i = byFree_[nextFree_];
    const MemUnit& u = units_[i];
    if (u.freeNs + (u.block ? kSlackNs : 0) >= ns) break;
    auto it = live_.find(u.lo);
    if (it != live_.end() && it->second == i) live_.erase(it);
    ++nextFree_;
  }
}

int RaceMemory::find(uint64_t addr, uint64_t ns, uint64_t stream) {
  if (!usable()) return -1;
  advance(ns);
  auto it = live_.upper_bound(addr);
  if (it == live_.begin()) return -1;
  --it;
  const MemUnit& u = units_[it->second];
  if (addr < u.lo || addr >= u.hi) return -1;
  // The block or the one it replaced? The two clocks disagree by tens of microseconds (the
  // allocator's drifts from its start; 2.3 and 21 us seen on the H200), more than lies between a
  // side stream's last read of a tensor, its free and the reuse of its memory. The allocator hands
  // a block out for work on its stream, so the block's first access comes from that stream: a
  // first access from another stream soon after the block's birth, where another block lay just
  // before, is that block's last use (else, inside the slack, nobody's), not the new producer.
  if (u.block && stream != kAnyStream && u.stream != stream && !touched_[size_t(it->second)] &&
      ns < u.allocNs + kSkewNs) {
    auto r = replaced_.find(u.lo);
    if (r != replaced_.end()) {
      const MemUnit& old = units_[r->second];
      if (addr >= old.lo && addr < old.hi && (!old.freeNs || ns <= old.freeNs + 2 * kSkewNs)) return r->second;
    }
    if (ns < u.allocNs) return -1;
  }
  if (stream != kAnyStream) touched_[size_t(it->second)] = true;
  // Unfreed units can outlive a newer one at another address that covers them (a trace whose
  // frees were cut off): the sweep keeps the last born at each start, which is enough here.
  return it->second;
}

}  // namespace sl::runtime
