// Sanitize mode (see Sanitize.h).
#include "Sanitize.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <new>

#include "RealDlsym.h"
#include "streamlint/GpuTimingSpec.h"

namespace sl::ip {

bool g_sanitize = false;
__thread LaunchArgs t_launch __attribute__((tls_model("initial-exec")));

namespace {

// The span of every device allocation seen (cudaMalloc, cuMemAlloc, stream-ordered): a cheap
// first filter for parameter words. The report resolves the survivors exactly.
std::atomic<uint64_t> g_segLo{~0ull}, g_segHi{0};

void widen(uint64_t lo, uint64_t hi) {
  uint64_t cur = g_segLo.load(std::memory_order_relaxed);
  while (lo < cur && !g_segLo.compare_exchange_weak(cur, lo, std::memory_order_relaxed)) {}
  cur = g_segHi.load(std::memory_order_relaxed);
  while (hi > cur && !g_segHi.compare_exchange_weak(cur, hi, std::memory_order_relaxed)) {}
}

using KernelParamInfo = CUresult (*)(CUkernel, size_t, size_t*, size_t*);
using FuncParamInfo = CUresult (*)(CUfunction, size_t, size_t*, size_t*);
using FuncBySymbol = cudaError_t (*)(cudaFunction_t*, const void*);

struct DriverFns {
  KernelParamInfo kernelParamInfo = nullptr;
  FuncParamInfo funcParamInfo = nullptr;
  FuncBySymbol funcBySymbol = nullptr;
};
const DriverFns& driverFns() {
  static DriverFns f = [] {
    DriverFns d;
    void* libcuda = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
    if (libcuda) {
      d.kernelParamInfo = reinterpret_cast<KernelParamInfo>(realDlsym(libcuda, "cuKernelGetParamInfo"));
      d.funcParamInfo = reinterpret_cast<FuncParamInfo>(realDlsym(libcuda, "cuFuncGetParamInfo"));
    }
    d.funcBySymbol = reinterpret_cast<FuncBySymbol>(realDlsym(RTLD_NEXT, "cudaGetFuncBySymbol"));
    return d;
  }();
  return f;
}

// The parameter sizes of a kernel, asked once per handle and thread (the driver's answer does not
// change). Parameters smaller than a pointer cannot hold one and are not kept.
bool paramLayout(ThreadState* ts, const LaunchArgs& a, ParamCacheEntry*& out) {
  if (ParamCacheEntry* hit = ts->paramCache.find(a.kernel)) { out = hit; return hit->known; }
  const DriverFns& d = driverFns();
  ParamCacheEntry* e = ts->paramCache.claim(a.kernel);
  out = e;
  const void* handle = a.kernel;
  KernelHandle kind = a.kind;
  if (kind == KernelHandle::HostStub) {  // nvcc's <<<>>> stub, cudaLaunchKernel: its CUfunction
    cudaFunction_t fn = nullptr;
    if (!d.funcBySymbol || d.funcBySymbol(&fn, handle) != cudaSuccess || !fn) return false;
    handle = fn;
    kind = KernelHandle::Function;
  }
  bool asKernel = kind == KernelHandle::Kernel;
  auto ask = [&](size_t i, size_t* off, size_t* size) {
    if (asKernel) return d.kernelParamInfo && d.kernelParamInfo((CUkernel)handle, i, off, size) == CUDA_SUCCESS;
    return d.funcParamInfo && d.funcParamInfo((CUfunction)handle, i, off, size) == CUDA_SUCCESS;
  };
  size_t off = 0, size = 0;
  // Since CUDA 12 a CUkernel may stand where a CUfunction is expected (cuBLAS, torch): the
  // CUfunction query fails on it, the CUkernel one answers.
  if (!ask(0, &off, &size) && kind == KernelHandle::FunctionOrKernel) asKernel = true;
  size_t i = 0;
  for (; i < kMaxParams && ask(i, &off, &size); ++i) e->size[i] = uint16_t(size > 0xffff ? 0xffff : size);
  e->n = uint8_t(i);
  // A kernel without parameters answers no index either; it passes no pointer, so the empty
  // footprint is right. A failure on a kernel with parameters cannot be told apart: the report
  // sees an empty footprint then (kernels without parameters are rare in real programs).
  e->known = true;
  return true;
}

inline bool inSpan(uint64_t w, uint64_t lo, uint64_t hi) { return w >= lo && w < hi; }

// Appends device-looking words of [p, p+bytes) to `words` (deduplicated), up to the record's cap.
void scanWords(const char* p, size_t bytes, uint64_t lo, uint64_t hi, uint64_t* words, int& n,
               uint8_t& flags) {
  for (size_t k = 0; k + 8 <= bytes; k += 8) {
    uint64_t w;
    memcpy(&w, p + k, 8);
    if (!inSpan(w, lo, hi)) continue;
    bool seen = false;
    for (int j = 0; j < n && !seen; ++j) seen = words[j] == w;
    if (seen) continue;
    if (n == slog::kMaxAccessWords) { flags |= slog::kAccessTruncated; return; }
    words[n++] = w;
  }
}

void writeFootprint(ThreadState* ts, uint64_t corr) {
  const LaunchArgs a = t_launch;
  t_launch = {};
  uint64_t lo = g_segLo.load(std::memory_order_relaxed), hi = g_segHi.load(std::memory_order_relaxed);
  uint64_t words[slog::kMaxAccessWords];
  int n = 0;
  uint8_t flags = 0;
  constexpr size_t kMaxScan = 4096;  // bytes of one launch's arguments looked at
  if (a.extra) {  // {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, END}
    flags |= slog::kAccessExtra;
    const char* buf = nullptr;
    size_t size = 0;
    for (int i = 0; i < 16 && a.extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (a.extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buf = static_cast<const char*>(a.extra[i + 1]);
      else if (a.extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && a.extra[i + 1]) size = *static_cast<size_t*>(a.extra[i + 1]);
    }
    if (buf) scanWords(buf, size < kMaxScan ? size : kMaxScan, lo, hi, words, n, flags);
    else flags |= slog::kAccessNoParamInfo;
  } else if (a.params && a.kernel) {
    ParamCacheEntry* e = nullptr;
    if (paramLayout(ts, a, e)) {
      size_t scanned = 0;
      for (int i = 0; i < e->n && scanned < kMaxScan; ++i) {
        if (e->size[i] < 8 || !a.params[i]) continue;
        scanWords(static_cast<const char*>(a.params[i]), e->size[i], lo, hi, words, n, flags);
        scanned += e->size[i];
      }
    } else {
      flags |= slog::kAccessNoParamInfo;
    }
  } else if (!a.kernel) {
    flags |= slog::kAccessNoParamInfo;
  }
  size_t bytes = sizeof(slog::AccessRecord) + 8 * size_t(n);
  char* p = reserve(ts, bytes);
  if (!p) return;
  auto* r = new (p) slog::AccessRecord{};
  r->h = {slog::RecType::Access, uint16_t(bytes)};
  r->n = uint16_t(n);
  r->flags = flags;
  r->corr = corr;
  memcpy(p + sizeof *r, words, 8 * size_t(n));
  commit(ts, bytes);
}

}  // namespace

// Sampled footprints (SL_SANITIZE_SAMPLE=ON/EVERY, `run --sanitize-sample`): launches record
// where they go only during ON of every EVERY from the recorder's start. Ordering calls, copies,
// sets and the allocator's trace are recorded throughout; the report judges only blocks whose
// first use fell in a window (a launch without its footprint may have been their producer).
uint64_t g_sampleOnNs = 0, g_sampleEveryNs = 0, g_sampleStartNs = 0;

void sanitizeConfig() {
  const char* v = getenv("SL_SANITIZE");
  g_sanitize = v && *v && *v != '0';
  slog::GpuSample s;
  if (const char* w = getenv("SL_SANITIZE_SAMPLE"); g_sanitize && w && *w) {
    if (slog::parseSample(w, s)) g_sampleOnNs = s.onNs, g_sampleEveryNs = s.everyNs, g_sampleStartNs = nowNs();
    else notice("sanitize-sample", "SL_SANITIZE_SAMPLE=%s is not ON/EVERY with 0 < ON < EVERY (e.g. 100ms/2s): "
                "every launch is recorded", w);
  }
}

namespace {
bool footprintWindow() {
  return !g_sampleEveryNs || (nowNs() - g_sampleStartNs) % g_sampleEveryNs < g_sampleOnNs;
}
}  // namespace

void sanitizeAfter(ThreadState* ts, const slog::ApiRecord* r, slog::ApiClass cls, int rc, bool footprint) {
  using C = slog::ApiClass;
  if (ts->gapFromNs) {  // records were dropped since the last one: say where, once room is back
    if (char* p = reserve(ts, sizeof(slog::GapRecord))) {
      auto* g = new (p) slog::GapRecord{};
      g->h = {slog::RecType::Gap, uint16_t(sizeof *g)};
      g->dropped = ts->dropped.load(std::memory_order_relaxed);
      g->fromNs = ts->gapFromNs;
      g->toNs = nowNs();
      commit(ts, sizeof *g);
      ts->gapFromNs = 0;
    }
  }
  if (rc != 0) { t_launch = {}; return; }
  if ((cls == C::Alloc || cls == C::AllocAsync)) {
    if (r && r->a0 && r->a2) widen(r->a0, r->a0 + r->a2);
    else if (!r) widen(0, ~0ull);  // an allocation we did not see: filter nothing out from now on
  }
  if (cls == C::Launch) {
    if (r && footprint && footprintWindow()) writeFootprint(ts, r->corr);
    t_launch = {};
  }
}

void writeBlockTrace(const uint64_t* e, size_t n) {
  constexpr size_t kBatch = 1024;
  slog::BlockRecord batch[kBatch];
  size_t k = 0;
  for (size_t i = 0; i < n; ++i, e += 6) {
    auto& b = batch[k++];
    b = slog::BlockRecord{};
    b.h = {slog::RecType::Block, uint16_t(sizeof b)};
    b.action = slog::BlockAction(e[0]);
    b.addr = e[1];
    b.size = e[2];
    b.stream = e[3];
    b.device = uint16_t(e[4]);
    b.realtimeNs = e[5];
    if (k == kBatch || i + 1 == n) { writeDirect(batch, k * sizeof b); k = 0; }
  }
}

}  // namespace sl::ip

// The caching allocator's trace, handed over by the Python side (python/sitecustomize.py) at
// exit: n entries of six words (action, addr, size, stream, device, realtime ns).
extern "C" __attribute__((visibility("default"))) int streamlint_block_trace(const uint64_t* e, size_t n) {
  if (!sl::ip::g_sanitize || !e) return -1;
  sl::ip::writeBlockTrace(e, n);
  return 0;
}
