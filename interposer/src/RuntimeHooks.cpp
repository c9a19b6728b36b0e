// CUDA runtime API symbols, exported from the preload library. Each hooked symbol appears once
// here; its real function comes from RTLD_NEXT (libcudart), or from a dlsym() on a libcudart
// handle (ctypes, RTLD_LOCAL loads: see DlsymHooks.cpp). Every hook is "required = no": a missing
// real symbol only matters if someone calls it, and then they got it from somewhere we saw.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <string.h>

#include "Hooks.h"
#include "RealDlsym.h"

namespace sl::ip {

std::atomic<void*> g_real[size_t(slog::Api::Count)];

void* resolveReal(slog::Api api) {
  const char* name = slog::apiName(api);
  void* p = realDlsym(RTLD_NEXT, name);
  if (!p && strncmp(name, "nccl", 4) == 0) p = ncclSymbol(name);
  if (p) g_real[size_t(api)].store(p, std::memory_order_relaxed);
  return p;
}

// NCCL often lives in a local scope: torch's extension modules are dlopened RTLD_LOCAL and bring
// libnccl.so.2 as their dependency, so their calls bind to our exports (the preload's global
// scope is searched first) while RTLD_NEXT from here cannot see the real ones. Its soname can.
void* ncclSymbol(const char* name) {
  static void* lib = nullptr;
  if (!lib) lib = dlopen("libnccl.so.2", RTLD_NOLOAD | RTLD_LAZY);
  return lib ? realDlsym(lib, name) : nullptr;
}

void noteResult(slog::Api api, int rc) {
  // 35 insufficient driver, 34 stub library, 100 no device: say once, keep recording. The flag
  // keeps later failing calls (every call, on a machine without a driver) off notice()'s path.
  static std::atomic<bool> said{false};
  if ((rc == 35 || rc == 34 || rc == 100) && !said.exchange(true))
    notice("no-driver", "CUDA is not usable here (%s returned %d: %s); calls are still recorded "
           "with their host time", slog::apiName(api), rc,
           rc == 100 ? "no CUDA device" : "no usable NVIDIA driver");
}

}  // namespace sl::ip

using namespace sl::ip;
using sl::slog::Api;
using sl::slog::ApiRecord;

// NAME, (typed parameters), (argument names), kernel handle or nullptr, { fill ApiRecord r }
#define SL_UNPAREN(...) __VA_ARGS__
#define SL_RT(NAME, PARAMS, ARGS, KERNEL, ...)                                              \
  SL_EXPORT cudaError_t CUDARTAPI NAME PARAMS {                                              \
    using Fn = cudaError_t(*) PARAMS;                                                        \
    return hookCall(Api::NAME, 0, reinterpret_cast<Fn>(realFor(Api::NAME)),                  \
                    __builtin_return_address(0), KERNEL,                                     \
                    [&](ApiRecord& r) { __VA_ARGS__; } SL_COMMA_ARGS ARGS);                  \
  }
#define SL_COMMA_ARGS(...) __VA_OPT__(, ) __VA_ARGS__

inline uint64_t packGrid(dim3 g) { return uint64_t(g.x) | uint64_t(g.y) << 32; }
inline uint64_t packBlock(dim3 b, size_t shm) {
  return uint64_t(b.x & 0xffff) | uint64_t(b.y & 0xffff) << 16 | uint64_t(b.z & 0xffff) << 32 |
         uint64_t(shm > 0xffff ? 0xffff : shm) << 48;
}

// --- synchronization and queries
SL_RT(cudaDeviceSynchronize, (void), (), nullptr, (void)r)
SL_RT(cudaStreamSynchronize, (cudaStream_t s), (s), nullptr, r.stream = u64(s))
SL_RT(cudaEventSynchronize, (cudaEvent_t e), (e), nullptr, r.a0 = u64(e))
SL_RT(cudaStreamQuery, (cudaStream_t s), (s), nullptr, r.stream = u64(s))
SL_RT(cudaEventQuery, (cudaEvent_t e), (e), nullptr, r.a0 = u64(e))
SL_RT(cudaStreamWaitEvent, (cudaStream_t s, cudaEvent_t e, unsigned int f), (s, e, f), nullptr,
      r.stream = u64(s); r.a0 = u64(e); r.a1 = f)
SL_RT(cudaEventRecord, (cudaEvent_t e, cudaStream_t s), (e, s), nullptr,
      r.stream = u64(s); r.a0 = u64(e))
SL_RT(cudaEventRecordWithFlags, (cudaEvent_t e, cudaStream_t s, unsigned int f), (e, s, f), nullptr,
      r.stream = u64(s); r.a0 = u64(e); r.a1 = f)

// --- event and stream lifetimes
SL_RT(cudaEventCreate, (cudaEvent_t* e), (e), nullptr, r.a0 = e ? u64(*e) : 0)
SL_RT(cudaEventCreateWithFlags, (cudaEvent_t* e, unsigned int f), (e, f), nullptr,
      r.a0 = e ? u64(*e) : 0; r.a1 = f)
SL_RT(cudaEventDestroy, (cudaEvent_t e), (e), nullptr, r.a0 = u64(e))
SL_RT(cudaStreamCreate, (cudaStream_t* s), (s), nullptr, r.a0 = s ? u64(*s) : 0)
SL_RT(cudaStreamCreateWithFlags, (cudaStream_t* s, unsigned int f), (s, f), nullptr,
      r.a0 = s ? u64(*s) : 0; r.a1 = f)
SL_RT(cudaStreamCreateWithPriority, (cudaStream_t* s, unsigned int f, int prio), (s, f, prio), nullptr,
      r.a0 = s ? u64(*s) : 0; r.a1 = f; r.a2 = uint64_t(int64_t(prio)))
SL_RT(cudaStreamDestroy, (cudaStream_t s), (s), nullptr, r.a0 = u64(s))

// --- allocations (device, pinned, managed, stream-ordered)
SL_RT(cudaMalloc, (void** p, size_t n), (p, n), nullptr, r.a0 = p ? u64(*p) : 0; r.a2 = n)
SL_RT(cudaFree, (void* p), (p), nullptr, r.a0 = u64(p))
SL_RT(cudaMallocHost, (void** p, size_t n), (p, n), nullptr, r.a0 = p ? u64(*p) : 0; r.a2 = n)
SL_RT(cudaHostAlloc, (void** p, size_t n, unsigned int f), (p, n, f), nullptr,
      r.a0 = p ? u64(*p) : 0; r.a1 = f; r.a2 = n)
SL_RT(cudaFreeHost, (void* p), (p), nullptr, r.a0 = u64(p))
SL_RT(cudaMallocManaged, (void** p, size_t n, unsigned int f), (p, n, f), nullptr,
      r.a0 = p ? u64(*p) : 0; r.a1 = f; r.a2 = n)
SL_RT(cudaMallocAsync, (void** p, size_t n, cudaStream_t s), (p, n, s), nullptr,
      r.a0 = p ? u64(*p) : 0; r.a2 = n; r.stream = u64(s))
SL_RT(cudaFreeAsync, (void* p, cudaStream_t s), (p, s), nullptr, r.a0 = u64(p); r.stream = u64(s))

// --- copies and sets
SL_RT(cudaMemcpy, (void* d, const void* s, size_t n, cudaMemcpyKind k), (d, s, n, k), nullptr,
      r.a0 = u64(d); r.a1 = u64(s); r.a2 = n; r.kind = k)
SL_RT(cudaMemcpyAsync, (void* d, const void* s, size_t n, cudaMemcpyKind k, cudaStream_t st),
      (d, s, n, k, st), nullptr, r.a0 = u64(d); r.a1 = u64(s); r.a2 = n; r.kind = k; r.stream = u64(st))
SL_RT(cudaMemcpy2D, (void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h, cudaMemcpyKind k),
      (d, dp, s, sp, w, h, k), nullptr, r.a0 = u64(d); r.a1 = u64(s); r.a2 = w * h; r.kind = k)
SL_RT(cudaMemcpy2DAsync,
      (void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h, cudaMemcpyKind k, cudaStream_t st),
      (d, dp, s, sp, w, h, k, st), nullptr,
      r.a0 = u64(d); r.a1 = u64(s); r.a2 = w * h; r.kind = k; r.stream = u64(st))
SL_RT(cudaMemcpyPeer, (void* d, int dd, const void* s, int sd, size_t n), (d, dd, s, sd, n), nullptr,
      r.a0 = u64(d); r.a1 = u64(s); r.a2 = n; r.kind = cudaMemcpyDeviceToDevice)
SL_RT(cudaMemcpyPeerAsync, (void* d, int dd, const void* s, int sd, size_t n, cudaStream_t st),
      (d, dd, s, sd, n, st), nullptr,
      r.a0 = u64(d); r.a1 = u64(s); r.a2 = n; r.kind = cudaMemcpyDeviceToDevice; r.stream = u64(st))
SL_RT(cudaMemset, (void* d, int v, size_t n), (d, v, n), nullptr,
      r.a0 = u64(d); r.a1 = uint64_t(v); r.a2 = n)
SL_RT(cudaMemsetAsync, (void* d, int v, size_t n, cudaStream_t st), (d, v, n, st), nullptr,
      r.a0 = u64(d); r.a1 = uint64_t(v); r.a2 = n; r.stream = u64(st))

// --- launches. torch calls __cudaLaunchKernel (the <<<>>> path of CUDA 13); the handle is a
// cudaKernel_t whose name the driver gives cheaply once (cached per thread).
SL_RT(__cudaLaunchKernel, (cudaKernel_t k, dim3 g, dim3 b, void** a, size_t shm, cudaStream_t s),
      (k, g, b, a, shm, s), k, stashLaunch(k, a, nullptr, KernelHandle::Kernel);
      r.a0 = u64(k); r.a1 = packGrid(g); r.kind = g.z; r.a2 = packBlock(b, shm); r.stream = u64(s))
SL_RT(__cudaLaunchKernel_ptsz, (cudaKernel_t k, dim3 g, dim3 b, void** a, size_t shm, cudaStream_t s),
      (k, g, b, a, shm, s), k, stashLaunch(k, a, nullptr, KernelHandle::Kernel);
      r.a0 = u64(k); r.a1 = packGrid(g); r.kind = g.z; r.a2 = packBlock(b, shm); r.stream = u64(s))
SL_RT(cudaLaunchKernel, (const void* f, dim3 g, dim3 b, void** a, size_t shm, cudaStream_t s),
      (f, g, b, a, shm, s), f, stashLaunch(f, a, nullptr, KernelHandle::HostStub);
      r.a0 = u64(f); r.a1 = packGrid(g); r.kind = g.z; r.a2 = packBlock(b, shm); r.stream = u64(s))
SL_RT(cudaLaunchKernelExC, (const cudaLaunchConfig_t* c, const void* f, void** a), (c, f, a), f,
      stashLaunch(f, a, nullptr, KernelHandle::HostStub); r.a0 = u64(f);
      if (c) { r.a1 = packGrid(c->gridDim); r.kind = c->gridDim.z;
               r.a2 = packBlock(c->blockDim, c->dynamicSmemBytes); r.stream = u64(c->stream); })
SL_RT(cudaGraphLaunch, (cudaGraphExec_t g, cudaStream_t s), (g, s), nullptr,
      r.a0 = u64(g); r.stream = u64(s))
