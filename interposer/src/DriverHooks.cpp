// Driver-level recording. cuBLAS/cuDNN/NCCL/Triton carry their own static cudart and reach the
// driver through dlopen("libcuda.so.1") + dlsym("cuGetProcAddress_v2") + cuGetProcAddress; the
// exported cudart symbols never see their launches (FACTS.md: 0 of 300). So we export glibc's
// dlsym/dlvsym, hand out our cuGetProcAddress, and replace each driver pointer it returns with
// a wrapper slot bound to that exact pointer: one (name, version, flags) may yield _ptsz or other
// variants, so wrappers are per returned pointer, not per name.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <string.h>

#include "Hooks.h"
#include "RealDlsym.h"

using namespace sl::ip;
using sl::slog::Api;
using sl::slog::ApiRecord;

namespace {

constexpr int kSlots = 6;
std::atomic<void*> g_slotReal[size_t(Api::Count)][kSlots];
void* g_slotFn[size_t(Api::Count)][kSlots];

// Wrapper signatures are the widest variant of each entry point (cuCtxSynchronize gained a
// context parameter in later drivers): extra integer registers are forwarded untouched.
#define SL_DRV(NAME, PARAMS, ARGS, KERNEL, ...)                                                \
  template <int S>                                                                              \
  CUresult CUDAAPI w_##NAME PARAMS {                                                            \
    using Fn = CUresult(CUDAAPI*) PARAMS;                                                       \
    auto real = reinterpret_cast<Fn>(g_slotReal[size_t(Api::NAME)][S].load(std::memory_order_relaxed)); \
    return hookCall(Api::NAME, sl::slog::kDriverLevel, real, __builtin_return_address(0), KERNEL, \
                    [&](ApiRecord& r) { __VA_ARGS__; }, SL_UNPAREN ARGS);                       \
  }                                                                                             \
  [[maybe_unused]] const bool reg_##NAME = [] {                                                 \
    void* fns[kSlots] = {(void*)&w_##NAME<0>, (void*)&w_##NAME<1>, (void*)&w_##NAME<2>,         \
                         (void*)&w_##NAME<3>, (void*)&w_##NAME<4>, (void*)&w_##NAME<5>};        \
    memcpy(g_slotFn[size_t(Api::NAME)], fns, sizeof fns);                                       \
    return true;                                                                                \
  }();
#define SL_UNPAREN(...) __VA_ARGS__

uint64_t packGrid(unsigned x, unsigned y) { return uint64_t(x) | uint64_t(y) << 32; }
uint64_t packBlock(unsigned x, unsigned y, unsigned z, unsigned shm) {
  return uint64_t(x & 0xffff) | uint64_t(y & 0xffff) << 16 | uint64_t(z & 0xffff) << 32 |
         uint64_t(shm > 0xffff ? 0xffff : shm) << 48;
}

SL_DRV(cuLaunchKernel,
       (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
        unsigned shm, CUstream s, void** p, void** e),
       (f, gx, gy, gz, bx, by, bz, shm, s, p, e), f,
       stashLaunch(f, p, e, KernelHandle::FunctionOrKernel); r.a0 = u64(f); r.a1 = packGrid(gx, gy); r.kind = gz; r.a2 = packBlock(bx, by, bz, shm);
       r.stream = u64(s))
SL_DRV(cuLaunchKernelEx, (const CUlaunchConfig* c, CUfunction f, void** p, void** e), (c, f, p, e), f,
       stashLaunch(f, p, e, KernelHandle::FunctionOrKernel); r.a0 = u64(f);
       if (c) { r.a1 = packGrid(c->gridDimX, c->gridDimY); r.kind = c->gridDimZ;
                r.a2 = packBlock(c->blockDimX, c->blockDimY, c->blockDimZ, c->sharedMemBytes);
                r.stream = u64(c->hStream); })
SL_DRV(cuCtxSynchronize, (CUcontext c), (c), nullptr, r.a0 = u64(c))
SL_DRV(cuStreamSynchronize, (CUstream s), (s), nullptr, r.stream = u64(s))
SL_DRV(cuEventSynchronize, (CUevent e), (e), nullptr, r.a0 = u64(e))
SL_DRV(cuMemAlloc, (CUdeviceptr* p, size_t n), (p, n), nullptr, r.a0 = p ? *p : 0; r.a2 = n)
SL_DRV(cuMemFree, (CUdeviceptr p), (p), nullptr, r.a0 = p)
SL_DRV(cuMemcpyHtoD, (CUdeviceptr d, const void* s, size_t n), (d, s, n), nullptr,
       r.a0 = d; r.a1 = u64(s); r.a2 = n; r.kind = cudaMemcpyHostToDevice)
SL_DRV(cuMemcpyDtoH, (void* d, CUdeviceptr s, size_t n), (d, s, n), nullptr,
       r.a0 = u64(d); r.a1 = s; r.a2 = n; r.kind = cudaMemcpyDeviceToHost)
SL_DRV(cuMemcpyDtoD, (CUdeviceptr d, CUdeviceptr s, size_t n), (d, s, n), nullptr,
       r.a0 = d; r.a1 = s; r.a2 = n; r.kind = cudaMemcpyDeviceToDevice)
SL_DRV(cuMemcpyAsync, (CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st), (d, s, n, st), nullptr,
       r.a0 = d; r.a1 = s; r.a2 = n; r.kind = cudaMemcpyDefault; r.stream = u64(st))
SL_DRV(cuMemcpyHtoDAsync, (CUdeviceptr d, const void* s, size_t n, CUstream st), (d, s, n, st), nullptr,
       r.a0 = d; r.a1 = u64(s); r.a2 = n; r.kind = cudaMemcpyHostToDevice; r.stream = u64(st))
SL_DRV(cuMemcpyDtoHAsync, (void* d, CUdeviceptr s, size_t n, CUstream st), (d, s, n, st), nullptr,
       r.a0 = u64(d); r.a1 = s; r.a2 = n; r.kind = cudaMemcpyDeviceToHost; r.stream = u64(st))
SL_DRV(cuStreamWaitEvent, (CUstream s, CUevent e, unsigned f), (s, e, f), nullptr,
       r.stream = u64(s); r.a0 = u64(e); r.a1 = f)
SL_DRV(cuEventRecord, (CUevent e, CUstream s), (e, s), nullptr, r.stream = u64(s); r.a0 = u64(e))
SL_DRV(cuMemAllocAsync, (CUdeviceptr* p, size_t n, CUstream s), (p, n, s), nullptr,
       r.a0 = p ? *p : 0; r.a2 = n; r.stream = u64(s))
SL_DRV(cuMemFreeAsync, (CUdeviceptr p, CUstream s), (p, s), nullptr, r.a0 = p; r.stream = u64(s))
SL_DRV(cuGraphLaunch, (CUgraphExec g, CUstream s), (g, s), nullptr, r.a0 = u64(g); r.stream = u64(s))

// Driver names as cuGetProcAddress sees them (base names) and as dlsym sees them (ABI names).
struct DriverName { const char* name; Api api; };
constexpr DriverName kDriverNames[] = {
    {"cuLaunchKernel", Api::cuLaunchKernel}, {"cuLaunchKernel_ptsz", Api::cuLaunchKernel},
    {"cuLaunchKernelEx", Api::cuLaunchKernelEx}, {"cuLaunchKernelEx_ptsz", Api::cuLaunchKernelEx},
    {"cuCtxSynchronize", Api::cuCtxSynchronize}, {"cuCtxSynchronize_v2", Api::cuCtxSynchronize},
    {"cuStreamSynchronize", Api::cuStreamSynchronize}, {"cuStreamSynchronize_ptsz", Api::cuStreamSynchronize},
    {"cuEventSynchronize", Api::cuEventSynchronize},
    {"cuMemAlloc", Api::cuMemAlloc}, {"cuMemAlloc_v2", Api::cuMemAlloc},
    {"cuMemFree", Api::cuMemFree}, {"cuMemFree_v2", Api::cuMemFree},
    {"cuMemcpyHtoD", Api::cuMemcpyHtoD}, {"cuMemcpyHtoD_v2", Api::cuMemcpyHtoD}, {"cuMemcpyHtoD_v2_ptds", Api::cuMemcpyHtoD},
    {"cuMemcpyDtoH", Api::cuMemcpyDtoH}, {"cuMemcpyDtoH_v2", Api::cuMemcpyDtoH}, {"cuMemcpyDtoH_v2_ptds", Api::cuMemcpyDtoH},
    {"cuMemcpyDtoD", Api::cuMemcpyDtoD}, {"cuMemcpyDtoD_v2", Api::cuMemcpyDtoD}, {"cuMemcpyDtoD_v2_ptds", Api::cuMemcpyDtoD},
    {"cuMemcpyAsync", Api::cuMemcpyAsync}, {"cuMemcpyAsync_ptsz", Api::cuMemcpyAsync},
    {"cuMemcpyHtoDAsync", Api::cuMemcpyHtoDAsync}, {"cuMemcpyHtoDAsync_v2", Api::cuMemcpyHtoDAsync},
    {"cuMemcpyHtoDAsync_v2_ptsz", Api::cuMemcpyHtoDAsync},
    {"cuMemcpyDtoHAsync", Api::cuMemcpyDtoHAsync}, {"cuMemcpyDtoHAsync_v2", Api::cuMemcpyDtoHAsync},
    {"cuMemcpyDtoHAsync_v2_ptsz", Api::cuMemcpyDtoHAsync},
    {"cuStreamWaitEvent", Api::cuStreamWaitEvent}, {"cuStreamWaitEvent_ptsz", Api::cuStreamWaitEvent},
    {"cuEventRecord", Api::cuEventRecord}, {"cuEventRecord_ptsz", Api::cuEventRecord},
    {"cuMemAllocAsync", Api::cuMemAllocAsync}, {"cuMemAllocAsync_ptsz", Api::cuMemAllocAsync},
    {"cuMemFreeAsync", Api::cuMemFreeAsync}, {"cuMemFreeAsync_ptsz", Api::cuMemFreeAsync},
    {"cuGraphLaunch", Api::cuGraphLaunch}, {"cuGraphLaunch_ptsz", Api::cuGraphLaunch},
};

bool isOurSlot(void* p) {
  for (auto& row : g_slotFn)
    for (void* f : row)
      if (f == p) return true;
  return false;
}

// The wrapper slot bound to `real`, or `real` itself when every slot is taken.
void* slotFor(Api api, void* real) {
  if (!real || isOurSlot(real)) return real;
  for (int s = 0; s < kSlots; ++s) {
    void* cur = g_slotReal[size_t(api)][s].load();
    if (cur == real) return g_slotFn[size_t(api)][s];
    if (!cur && g_slotReal[size_t(api)][s].compare_exchange_strong(cur, real))
      return g_slotFn[size_t(api)][s];
    if (cur == real) return g_slotFn[size_t(api)][s];
  }
  notice("slots", "more than %d variants of %s: further ones are not recorded", kSlots,
         sl::slog::apiName(api));
  return real;
}

std::atomic<void*> g_realGetProc{nullptr}, g_realGetProcV1{nullptr};

CUresult CUDAAPI ourGetProcAddressV2(const char* sym, void** pfn, int ver, cuuint64_t flags,
                                     CUdriverProcAddressQueryResult* status);
CUresult CUDAAPI ourGetProcAddressV1(const char* sym, void** pfn, int ver, cuuint64_t flags);

// Replaces a driver pointer handed out under `name` with our wrapper where we record it.
void* wrapDriver(const char* name, void* p) {
  if (!p || !name || name[0] != 'c' || name[1] != 'u') return p;
  if (strcmp(name, "cuGetProcAddress_v2") == 0 || strcmp(name, "cuGetProcAddress") == 0) {
    if (p == reinterpret_cast<void*>(&ourGetProcAddressV2) || p == reinterpret_cast<void*>(&ourGetProcAddressV1))
      return p;
    // cuGetProcAddress("cuGetProcAddress", v>=12000) is the 5-argument form.
    bool v2 = strcmp(name, "cuGetProcAddress_v2") == 0 || p == g_realGetProc.load();
    if (v2) { g_realGetProc.store(p); return reinterpret_cast<void*>(&ourGetProcAddressV2); }
    g_realGetProcV1.store(p);
    return reinterpret_cast<void*>(&ourGetProcAddressV1);
  }
  for (const auto& d : kDriverNames)
    if (strcmp(name, d.name) == 0) return slotFor(d.api, p);
  return p;
}

CUresult CUDAAPI ourGetProcAddressV2(const char* sym, void** pfn, int ver, cuuint64_t flags,
                                     CUdriverProcAddressQueryResult* status) {
  using Fn = CUresult(CUDAAPI*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto real = reinterpret_cast<Fn>(g_realGetProc.load());
  CUresult rc = real(sym, pfn, ver, flags, status);
  if (rc == CUDA_SUCCESS && pfn && *pfn && recordingEnabled()) *pfn = wrapDriver(sym, *pfn);
  return rc;
}
CUresult CUDAAPI ourGetProcAddressV1(const char* sym, void** pfn, int ver, cuuint64_t flags) {
  using Fn = CUresult(CUDAAPI*)(const char*, void**, int, cuuint64_t);
  auto real = reinterpret_cast<Fn>(g_realGetProcV1.load());
  CUresult rc = real(sym, pfn, ver, flags);
  if (rc == CUDA_SUCCESS && pfn && *pfn && recordingEnabled()) *pfn = wrapDriver(sym, *pfn);
  return rc;
}

// A cudart symbol fetched through dlsym on a handle (ctypes, RTLD_LOCAL): hand out our export so
// the call is recorded, provided that it is the same libcudart our hooks forward to.
void* wrapAny(const char* name, void* p);
void* wrapRuntime(const char* name, void* p) {
  if (!p || (strncmp(name, "cuda", 4) != 0 && strncmp(name, "__cuda", 6) != 0 && strncmp(name, "nccl", 4) != 0))
    return p;
  for (size_t i = 0; i < size_t(Api::Count); ++i) {
    Api api = Api(i);
    if (strcmp(name, sl::slog::apiName(api)) != 0) continue;
    static void* self = [] {
      Dl_info me{};
      dladdr(reinterpret_cast<void*>(&wrapAny), &me);
      return me.dli_fname ? dlopen(me.dli_fname, RTLD_NOLOAD | RTLD_LAZY) : nullptr;
    }();
    void* ours = self ? realDlsym(self, name) : nullptr;  // our own export of that name
    Dl_info mine{}, found{};
    if (!ours || p == ours || !dladdr(ours, &mine) || !dladdr(p, &found) ||
        found.dli_fbase == mine.dli_fbase)
      return p;
    void* expected = nullptr;
    if (g_real[i].compare_exchange_strong(expected, p) || expected == p) return ours;
    return p;  // a second libcudart: leave it unrecorded rather than mix the two
  }
  return p;
}

void* wrapAny(const char* name, void* p) {
  if (!name || !recordingEnabled()) return p;
  return wrapRuntime(name, wrapDriver(name, p));
}

}  // namespace

// ---- exported dlsym / dlvsym ----------------------------------------------------------------
// dlsym(RTLD_NEXT, ...) resolves relative to its caller's return address, so that case must reach
// glibc as a tail jump from the original caller (another preload shim asking for "malloc" must
// not get itself back). Everything else goes through the C++ path below.
extern "C" __attribute__((visibility("hidden"))) void* sl_dlsym_impl(void* h, const char* name) {
  initRealDlsym();
  return wrapAny(name, realDlsym(h, name));
}
extern "C" __attribute__((visibility("hidden"))) void* sl_dlvsym_impl(void* h, const char* name,
                                                                      const char* ver) {
  initRealDlsym();
  return wrapAny(name, realDlvsym(h, name, ver));
}
#if defined(__x86_64__)
__asm__(
    ".text\n"
    ".globl dlsym\n.type dlsym,@function\n"
    "dlsym:\n"
    "  cmpq $-1, %rdi\n"
    "  jne 1f\n"
    "  movq sl_real_dlsym(%rip), %rax\n"
    "  testq %rax, %rax\n"
    "  jz 1f\n"
    "  jmp *%rax\n"
    "1: jmp sl_dlsym_impl\n"
    ".size dlsym, .-dlsym\n"
    ".globl dlvsym\n.type dlvsym,@function\n"
    "dlvsym:\n"
    "  cmpq $-1, %rdi\n"
    "  jne 2f\n"
    "  movq sl_real_dlvsym(%rip), %rax\n"
    "  testq %rax, %rax\n"
    "  jz 2f\n"
    "  jmp *%rax\n"
    "2: jmp sl_dlvsym_impl\n"
    ".size dlvsym, .-dlvsym\n");
#else
#error "the dlsym stubs are written for x86-64"
#endif

// ---- kernel names -----------------------------------------------------------------------------
namespace sl::ip {

// Name of a kernel handle, asked once per handle and thread; emitted as a String record.
uint32_t kernelNameId(ThreadState* ts, slog::Api api, const void* handle) {
  if (NameCacheEntry* hit = ts->nameCache.find(handle)) return hit->id;
  static void* libcuda = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
  static auto funcName = reinterpret_cast<CUresult (*)(const char**, CUfunction)>(
      libcuda ? realDlsym(libcuda, "cuFuncGetName") : nullptr);
  static auto kernName = reinterpret_cast<CUresult (*)(const char**, CUkernel)>(
      libcuda ? realDlsym(libcuda, "cuKernelGetName") : nullptr);
  static auto rtName = reinterpret_cast<cudaError_t (*)(const char**, const void*)>(
      realDlsym(RTLD_NEXT, "cudaFuncGetName"));
  const char* name = nullptr;
  if (api == slog::Api::cuLaunchKernel || api == slog::Api::cuLaunchKernelEx) {
    // Since CUDA 12 a CUkernel may be passed where a CUfunction is expected (cuBLAS does).
    if (funcName && funcName(&name, (CUfunction)handle) != CUDA_SUCCESS) name = nullptr;
    if (!name && kernName && kernName(&name, (CUkernel)handle) != CUDA_SUCCESS) name = nullptr;
  } else if (api == slog::Api::__cudaLaunchKernel || api == slog::Api::__cudaLaunchKernel_ptsz) {
    if (kernName && kernName(&name, (CUkernel)handle) != CUDA_SUCCESS) name = nullptr;
  } else if (rtName && rtName(&name, handle) != cudaSuccess) {
    name = nullptr;
  }
  if (!name) {  // remembered too: asking again on every launch costs a driver call each time
    ts->nameCache.claim(handle)->id = 0;
    return 0;
  }
  size_t len = strnlen(name, 4000);
  size_t bytes = slog::align8(sizeof(slog::StringRecord) + len);
  char* p = reserve(ts, bytes);
  if (!p) return 0;
  auto* r = reinterpret_cast<slog::StringRecord*>(p);
  r->h = {slog::RecType::String, uint16_t(bytes)};
  uint32_t id = nextStringId();
  r->id = id;
  r->len = uint32_t(len);
  memcpy(p + sizeof *r, name, len);
  commit(ts, bytes);
  ts->nameCache.claim(handle)->id = id;
  return id;
}

}  // namespace sl::ip
