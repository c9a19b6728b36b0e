// GPU timing through CUPTI's activity API, without cuptiSubscribe: CUPTI allows one subscriber
// per process and torch.profiler (Kineto) needs it (FACTS.md). The activity API has a single set
// of buffer callbacks too, so when anyone else registers theirs (Kineto does when a profiler
// starts) we flush what we have, switch our kinds off and yield for the rest of the process:
// the user's profiler gets CUPTI exactly as if we were absent, and the log says when timing ended.
// When our kinds are on is GpuWindows' business.
//
// GPU records are tied to API records offline, by order (analyzer/runtime/Timeline.cpp): CUPTI's
// external correlation records never arrived on the H200 without API records, which cost a
// record per CUDA call (bench/interposer/README.md).
#include <cupti.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "GpuWindows.h"
#include "Hooks.h"
#include "RealDlsym.h"

namespace sl::ip {

Knobs g_knobs;

namespace {

size_t g_bufBytes = 2 << 20;
std::atomic<int> g_started{0};  // 0 not yet, 1 starting/started
std::atomic<bool> g_active{false};     // registered as ours: windows may switch kinds
std::atomic<bool> g_othersOwn{false};  // someone else registered activity callbacks

struct Api {
  CUptiResult (*registerCallbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
  CUptiResult (*enable)(CUpti_ActivityKind);
  CUptiResult (*disable)(CUpti_ActivityKind);
  CUptiResult (*flushAll)(uint32_t);
  CUptiResult (*nextRecord)(uint8_t*, size_t, CUpti_Activity**);
  CUptiResult (*numDropped)(CUcontext, uint32_t, size_t*);
  CUptiResult (*timestamp)(uint64_t*);
  CUptiResult (*resultString)(CUptiResult, const char**);
  CUptiResult (*setAttribute)(CUpti_ActivityAttribute, size_t*, void*);
  CUptiResult (*flushPeriod)(uint32_t);
} g_api;

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_MEMSET};
unsigned g_kindMask = 0x7;  // experiment knob: which of kKinds are enabled
CUptiResult g_lastError = CUPTI_SUCCESS;

std::mutex g_mu;  // guards the maps below; CUPTI delivers buffers from its own thread
std::unordered_map<std::string, uint32_t> g_names;
// CUPTI shares one name string among all records of a kernel: look the pointer up first, so a
// record costs no string hashing (the text map catches a second pointer to the same name).
std::unordered_map<const char*, uint32_t> g_namePtrs;

// Activity buffers are reused: a buffer comes back zeroed by the thread that delivered it
// (CUPTI's worker), so CUPTI need not clear it on the launching thread
// (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER) and its pages are already mapped.
std::mutex g_poolMu;
std::vector<uint8_t*> g_pool;
constexpr size_t kPoolKeep = 4;
std::atomic<bool> g_usePool{true};  // off once a profiler takes CUPTI (and as an experiment)

void* openCupti() {
  // Prefer the copy already in the process (torch's, via its RPATH): two CUPTIs must not mix.
  if (void* h = dlopen("libcupti.so.13", RTLD_NOLOAD | RTLD_NOW)) return h;
  const char* env = getenv("SL_CUPTI_LIB");
  const char* candidates[] = {env, "libcupti.so.13", "/usr/local/cuda/lib64/libcupti.so.13",
                              "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13"};
  for (const char* c : candidates)
    if (c && *c)
      if (void* h = dlopen(c, RTLD_NOW | RTLD_LOCAL)) return h;
  return nullptr;
}

void writeClock() {
  uint64_t ts = 0;
  if (!g_api.timestamp || g_api.timestamp(&ts) != CUPTI_SUCCESS) return;
  slog::ClockRecord c{};
  c.h = {slog::RecType::Clock, sizeof c};
  c.cuptiNs = ts;
  c.monoNs = nowNs();
  writeDirect(&c, sizeof c);
}

uint32_t internName(const char* name) {  // caller holds g_mu
  if (!name) return 0;
  if (auto p = g_namePtrs.find(name); p != g_namePtrs.end()) return p->second;
  if (g_namePtrs.size() > 100000) g_namePtrs.clear();  // bound: names are few, pointers too
  auto [it, fresh] = g_names.try_emplace(name, 0);
  if (!fresh) return g_namePtrs[name] = it->second;
  it->second = nextStringId();
  size_t len = strnlen(name, 4000);
  std::vector<char> buf(slog::align8(sizeof(slog::StringRecord) + len), 0);
  auto* r = reinterpret_cast<slog::StringRecord*>(buf.data());
  r->h = {slog::RecType::String, uint16_t(buf.size())};
  r->id = it->second;
  r->len = uint32_t(len);
  memcpy(buf.data() + sizeof *r, name, len);
  writeDirect(buf.data(), buf.size());
  return g_namePtrs[name] = it->second;
}

size_t g_poolBytes = 0;  // size of the pooled buffers (g_bufBytes may change: experiments)

void CUPTIAPI bufferRequested(uint8_t** buf, size_t* size, size_t* maxRecords) {
  *maxRecords = 0;
  size_t want = g_bufBytes;
  if (g_usePool) {
    std::lock_guard<std::mutex> lock(g_poolMu);
    if (!g_pool.empty() && g_poolBytes == want) {  // pooled buffers are counted already
      *buf = g_pool.back();
      g_pool.pop_back();
      *size = want;
      return;
    }
  }
  if (!underCap(want)) {  // at the memory cap CUPTI drops (and counts) instead
    *buf = nullptr;
    *size = 0;
    return;
  }
  // calloc: fresh pages are zero, as CUPTI is told (ZEROED_OUT) when pooling.
  *buf = static_cast<uint8_t*>(g_usePool ? calloc(1, want) : aligned_alloc(8, want));
  *size = *buf ? want : 0;
  if (*buf) noteBytes(int64_t(want));
}

void releaseBuffer(uint8_t* buf, size_t size) {
  if (g_usePool && size == g_bufBytes) {
    memset(buf, 0, size);  // here, on the delivering thread, not on a launching one
    std::lock_guard<std::mutex> lock(g_poolMu);
    if (g_poolBytes != size) {
      for (uint8_t* b : g_pool) { free(b); noteBytes(-int64_t(g_poolBytes)); }
      g_pool.clear();
      g_poolBytes = size;
    }
    if (g_pool.size() < kPoolKeep) { g_pool.push_back(buf); return; }
  }
  free(buf);
  noteBytes(-int64_t(size));
}

void CUPTIAPI bufferCompleted(CUcontext ctx, uint32_t streamId, uint8_t* buf, size_t bufSize, size_t valid) {
  static thread_local std::vector<slog::ActivityRecord> out;
  out.clear();
  {
    std::lock_guard<std::mutex> lock(g_mu);
    CUpti_Activity* rec = nullptr;
    while (g_api.nextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
      slog::ActivityRecord a{};
      a.h = {slog::RecType::Activity, sizeof a};
      switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: case CUPTI_ACTIVITY_KIND_KERNEL: {
          auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(rec);
          a.kind = slog::ActivityKind::Kernel;
          a.start = k->start; a.end = k->end; a.correlationId = k->correlationId;
          a.streamId = k->streamId; a.deviceId = k->deviceId; a.nameId = internName(k->name);
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
          auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(rec);
          a.kind = slog::ActivityKind::Memcpy; a.copyKind = m->copyKind;
          a.srcKind = m->srcKind; a.dstKind = m->dstKind;
          a.start = m->start; a.end = m->end; a.correlationId = m->correlationId;
          a.streamId = m->streamId; a.deviceId = m->deviceId; a.bytes = m->bytes;
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
          auto* m = reinterpret_cast<CUpti_ActivityMemset4*>(rec);
          a.kind = slog::ActivityKind::Memset;
          a.start = m->start; a.end = m->end; a.correlationId = m->correlationId;
          a.streamId = m->streamId; a.deviceId = m->deviceId; a.bytes = m->bytes;
          break;
        }
        default: continue;
      }
      out.push_back(a);
    }
  }
  if (!out.empty()) writeDirect(out.data(), out.size() * sizeof(slog::ActivityRecord));
  size_t dropped = 0;
  if (g_api.numDropped && g_api.numDropped(ctx, streamId, &dropped) == CUPTI_SUCCESS && dropped)
    addActivityDropped(dropped);
  if (buf) releaseBuffer(buf, bufSize);
}

const char* errText(CUptiResult r) {
  const char* s = nullptr;
  if (g_api.resultString) g_api.resultString(r, &s);
  return s ? s : "?";
}

template <class T>
bool load(void* h, const char* name, T& out) {
  out = reinterpret_cast<T>(realDlsym(h, name));
  return out != nullptr;
}

void start() {
  slog::GpuTiming mode = gpuTimingConfigured();
  setGpuTiming(mode);
  if (mode == slog::GpuTiming::Off) return;
  if (g_othersOwn.load()) {  // a profiler registered first: stay out of its way
    setCuptiState(slog::CuptiState::Yielded);
    return;
  }
  void* h = openCupti();
  if (!h) {
    notice("cupti", "CUPTI (libcupti.so.13) not found: recording host-side calls only, no GPU "
           "timing; set SL_CUPTI_LIB=/path/to/libcupti.so.13");
    setCuptiState(slog::CuptiState::Unavailable);
    return;
  }
  bool ok = load(h, "cuptiActivityRegisterCallbacks", g_api.registerCallbacks) &&
            load(h, "cuptiActivityEnable", g_api.enable) && load(h, "cuptiActivityDisable", g_api.disable) &&
            load(h, "cuptiActivityFlushAll", g_api.flushAll) &&
            load(h, "cuptiActivityGetNextRecord", g_api.nextRecord);
  load(h, "cuptiActivityGetNumDroppedRecords", g_api.numDropped);
  load(h, "cuptiGetTimestamp", g_api.timestamp);
  load(h, "cuptiGetResultString", g_api.resultString);
  load(h, "cuptiActivitySetAttribute", g_api.setAttribute);
  load(h, "cuptiActivityFlushPeriod", g_api.flushPeriod);

  if (!ok) {
    notice("cupti", "this libcupti lacks the activity API: no GPU timing");
    setCuptiState(slog::CuptiState::Unavailable);
    return;
  }
  if (g_usePool && g_api.setAttribute) {
    uint8_t zeroed = 1;
    size_t n = sizeof zeroed;
    g_api.setAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &n, &zeroed);
  }
  CUptiResult r = g_api.registerCallbacks(bufferRequested, bufferCompleted);
  if (r == CUPTI_SUCCESS) {
    g_active.store(true);
    if (!windowsStart()) r = g_lastError;
  }
  if (r != CUPTI_SUCCESS) {
    g_active.store(false);
    notice("cupti", "CUPTI refused activity recording (error %d: %s): no GPU timing, host-side "
           "calls are still recorded", int(r), errText(r));
    for (auto k : kKinds) g_api.disable(k);
    setCuptiState(slog::CuptiState::Unavailable);
    return;
  }
  writeClock();
  setCuptiState(slog::CuptiState::Active);
}

}  // namespace

bool cuptiOurs() { return g_active.load(std::memory_order_relaxed); }
void cuptiForget() {
  if (g_active.exchange(false)) setCuptiState(slog::CuptiState::Off);  // the parent times the GPU
}

bool cuptiSetKinds(bool on) {
  CUptiResult r = CUPTI_SUCCESS;
  for (size_t i = 0; i < std::size(kKinds); ++i) {
    if (!(g_kindMask & (1u << i))) continue;
    CUptiResult k = on ? g_api.enable(kKinds[i]) : g_api.disable(kKinds[i]);
    if (r == CUPTI_SUCCESS) r = k;
    if (on && k != CUPTI_SUCCESS) break;
  }
  if (r != CUPTI_SUCCESS) g_lastError = r;
  return r == CUPTI_SUCCESS;
}

void cuptiStartOnce() {
  if (__builtin_expect(g_started.load(std::memory_order_relaxed) != 0, 1)) return;
  int expected = 0;
  if (g_started.compare_exchange_strong(expected, 1)) start();
}

// Stops our kinds and hands our buffers back. `yielding`: someone else takes CUPTI now.
void cuptiStop(bool yielding) {
  if (!g_active.load()) return;
  windowsStop(yielding ? slog::WindowReason::Yield : slog::WindowReason::Exit);
  g_active.store(false);
  ++t_depth;  // CUPTI's own CUDA calls are not the program's
  g_api.flushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  writeClock();
  if (yielding) setCuptiState(slog::CuptiState::Yielded);
  --t_depth;
}

void cuptiFinish() { cuptiStop(false); }

// Before someone else registers buffer callbacks: their buffers are not zeroed (CUPTI must clear
// them again) and our pooled buffers will not be asked for any more.
void handOverSettings() {
  if (g_api.setAttribute) {
    uint8_t zeroed = 0;
    size_t n = sizeof zeroed;
    g_api.setAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &n, &zeroed);
  }
  std::lock_guard<std::mutex> lock(g_poolMu);
  for (uint8_t* b : g_pool) { free(b); noteBytes(-int64_t(g_poolBytes)); }
  g_pool.clear();
  g_usePool.store(false);
}

}  // namespace sl::ip

#ifdef SL_KNOBS
// Experiment switches for bench/interposer/knobs_ab.py (not in regular builds). Returns 0, or
// the CUPTI result of the action.
SL_EXPORT long streamlint_tune(int key, long value) {
  using namespace sl::ip;
  switch (key) {
    case 0: g_knobs.python = value != 0; return 0;
    case 1: g_tscClock = value != 0; return 0;
    case 2: g_knobs.names = value != 0; return 0;
    case 4: g_kindMask = unsigned(value); return 0;  // applies at the next enable
    case 5: {
      g_usePool.store(value != 0);
      uint8_t zeroed = value != 0 ? 1 : 0;
      size_t n = sizeof zeroed;
      return g_api.setAttribute ? g_api.setAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &n, &zeroed) : -1;
    }
    case 6: g_bufBytes = size_t(value) << 10; return 0;
    case 7: return g_api.flushPeriod ? g_api.flushPeriod(uint32_t(value)) : -1;
  }
  return -1;
}
#endif

// Interposed so that we notice a profiler taking CUPTI (see the top of this file).
SL_EXPORT CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                                                               CUpti_BuffersCallbackCompleteFunc done) {
  using namespace sl::ip;
  g_othersOwn.store(true);
  if (g_active.load()) {
    cuptiStop(true);
    notice("cupti-yield", "a profiler took CUPTI (torch.profiler?): streamlint's GPU timing stops "
           "here so that the profiler gets every event; host-side recording continues");
  }
  handOverSettings();
  using Fn = CUptiResult(CUPTIAPI*)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
  auto real = reinterpret_cast<Fn>(realDlsym(RTLD_NEXT, "cuptiActivityRegisterCallbacks"));
  if (!real) real = g_api.registerCallbacks;
  return real ? real(req, done) : CUPTI_ERROR_NOT_INITIALIZED;
}

// CUDA_INJECTION64_PATH entry point, called by the driver during cuInit. Loaded this way (not
// preloaded) our symbols are not in the global scope, so only GPU activity can be recorded.
SL_EXPORT int InitializeInjection(void) {
  using namespace sl::ip;
  notice("injection", "loaded through CUDA_INJECTION64_PATH: recording GPU activity (kernels, "
         "copies, sets) only; use `streamlint run` (LD_PRELOAD) to record host calls too");
  // No hooks run in this mode, so no windows could open or close: time everything instead.
  if (!realDlsym(RTLD_DEFAULT, "streamlint_recording")) gpuTimingContinuous();
  ensureStarted();
  cuptiStartOnce();
  return 1;
}
