// The API table: one row per modelled call. Argument indices follow the declarations in CUDA
// 13's cuda_runtime_api.h / cuda.h and LibTorch's c10/cuda + ATen/cuda headers.
#include "cxx/CudaApiTable.h"

#include <array>
#include <unordered_map>

namespace sl::cxx {
namespace {

using model::CopyDir;
using model::SyncKind;
using O = ApiOp;

// Fields: name, op, sync, stream, value, src, dir, async, fixedDir.
constexpr ApiEntry kTable[] = {
    // ---- CUDA runtime: streams and events -------------------------------------------------
    {"cudaStreamCreate", O::StreamCreate, SyncKind::None, -1, 0},
    {"cudaStreamCreateWithFlags", O::StreamCreate, SyncKind::None, -1, 0},
    {"cudaStreamCreateWithPriority", O::StreamCreate, SyncKind::None, -1, 0},
    {"cudaEventCreate", O::EventCreate, SyncKind::None, -1, 0},
    {"cudaEventCreateWithFlags", O::EventCreate, SyncKind::None, -1, 0},
    {"cudaDeviceSynchronize", O::Sync, SyncKind::Device},
    {"cudaThreadSynchronize", O::Sync, SyncKind::Device},
    {"cudaStreamSynchronize", O::Sync, SyncKind::Stream, 0},
    {"cudaEventSynchronize", O::Sync, SyncKind::Event, -1, 0},
    {"cudaStreamWaitEvent", O::Wait, SyncKind::None, 0, 1},
    {"cudaEventRecord", O::EventRecord, SyncKind::None, 1, 0},
    {"cudaEventRecordWithFlags", O::EventRecord, SyncKind::None, 1, 0},
    // ---- CUDA runtime: launches (the `<<<>>>` syntax is handled by the lowering itself) -----
    {"cudaLaunchKernel", O::Launch, SyncKind::None, 5, -1, -1, -1, true},
    {"cudaLaunchCooperativeKernel", O::Launch, SyncKind::None, 5, -1, -1, -1, true},
    {"cudaLaunchKernelExC", O::Launch, SyncKind::None, -1, -1, -1, -1, true},  // stream in config
    {"cudaLaunchKernelEx", O::Launch, SyncKind::None, -1, -1, -1, -1, true},
    // ---- CUDA runtime: copies and memsets ------------------------------------------------
    {"cudaMemcpy", O::Copy, SyncKind::BlockingCopy, -1, 0, 1, 3},
    {"cudaMemcpyAsync", O::Copy, SyncKind::None, 4, 0, 1, 3, true},
    {"cudaMemcpy2D", O::Copy, SyncKind::BlockingCopy, -1, 0, 2, 6},
    {"cudaMemcpy2DAsync", O::Copy, SyncKind::None, 7, 0, 2, 6, true},
    {"cudaMemcpyToSymbol", O::Copy, SyncKind::BlockingCopy, -1, 0, 1, 4},
    {"cudaMemcpyToSymbolAsync", O::Copy, SyncKind::None, 5, 0, 1, 4, true},
    {"cudaMemcpyFromSymbol", O::Copy, SyncKind::BlockingCopy, -1, 0, 1, 4},
    {"cudaMemcpyFromSymbolAsync", O::Copy, SyncKind::None, 5, 0, 1, 4, true},
    {"cudaMemcpyPeer", O::Copy, SyncKind::BlockingCopy, -1, 0, 2, -1, false, CopyDir::DeviceToDevice},
    {"cudaMemcpyPeerAsync", O::Copy, SyncKind::None, 5, 0, 2, -1, true, CopyDir::DeviceToDevice},
    {"cudaMemset", O::Memset, SyncKind::None, -1, 0},
    {"cudaMemsetAsync", O::Memset, SyncKind::None, 3, 0, -1, -1, true},
    {"cudaMemset2D", O::Memset, SyncKind::None, -1, 0},
    {"cudaMemset2DAsync", O::Memset, SyncKind::None, 5, 0, -1, -1, true},
    // ---- CUDA runtime: allocation --------------------------------------------------------
    {"cudaMalloc", O::Alloc, SyncKind::Allocation, -1, 0},
    {"cudaMallocManaged", O::Alloc, SyncKind::Allocation, -1, 0, -1, -1, false, CopyDir::Unknown, true},
    {"cudaMallocPitch", O::Alloc, SyncKind::Allocation, -1, 0},
    {"cudaMallocAsync", O::Alloc, SyncKind::None, 2, 0, -1, -1, true},
    {"cudaMallocFromPoolAsync", O::Alloc, SyncKind::None, 3, 0, -1, -1, true},
    {"cudaMallocHost", O::HostAlloc, SyncKind::Allocation, -1, 0},
    {"cudaHostAlloc", O::HostAlloc, SyncKind::Allocation, -1, 0},
    {"cudaHostRegister", O::HostRegister, SyncKind::None, -1, 0},
    {"cudaFree", O::Free, SyncKind::Allocation, -1, 0},
    {"cudaFreeAsync", O::Free, SyncKind::None, 1, 0, -1, -1, true},
    {"cudaFreeHost", O::HostFree, SyncKind::Allocation, -1, 0},
    // ---- CUDA driver API (names after stripping _v2/_ptsz, see normalizeApiName) ----------
    {"cuStreamCreate", O::StreamCreate, SyncKind::None, -1, 0},
    {"cuStreamCreateWithPriority", O::StreamCreate, SyncKind::None, -1, 0},
    {"cuEventCreate", O::EventCreate, SyncKind::None, -1, 0},
    {"cuCtxSynchronize", O::Sync, SyncKind::Device},
    {"cuStreamSynchronize", O::Sync, SyncKind::Stream, 0},
    {"cuEventSynchronize", O::Sync, SyncKind::Event, -1, 0},
    {"cuStreamWaitEvent", O::Wait, SyncKind::None, 0, 1},
    {"cuEventRecord", O::EventRecord, SyncKind::None, 1, 0},
    {"cuEventRecordWithFlags", O::EventRecord, SyncKind::None, 1, 0},
    {"cuLaunchKernel", O::Launch, SyncKind::None, 8, -1, -1, -1, true},
    {"cuLaunchCooperativeKernel", O::Launch, SyncKind::None, 8, -1, -1, -1, true},
    {"cuLaunchKernelEx", O::Launch, SyncKind::None, -1, -1, -1, -1, true},
    {"cuMemcpy", O::Copy, SyncKind::BlockingCopy, -1, 0, 1},
    {"cuMemcpyAsync", O::Copy, SyncKind::None, 3, 0, 1, -1, true},
    {"cuMemcpyHtoD", O::Copy, SyncKind::BlockingCopy, -1, 0, 1, -1, false, CopyDir::HostToDevice},
    {"cuMemcpyDtoH", O::Copy, SyncKind::BlockingCopy, -1, 0, 1, -1, false, CopyDir::DeviceToHost},
    {"cuMemcpyDtoD", O::Copy, SyncKind::BlockingCopy, -1, 0, 1, -1, false, CopyDir::DeviceToDevice},
    {"cuMemcpyHtoDAsync", O::Copy, SyncKind::None, 3, 0, 1, -1, true, CopyDir::HostToDevice},
    {"cuMemcpyDtoHAsync", O::Copy, SyncKind::None, 3, 0, 1, -1, true, CopyDir::DeviceToHost},
    {"cuMemcpyDtoDAsync", O::Copy, SyncKind::None, 3, 0, 1, -1, true, CopyDir::DeviceToDevice},
    {"cuMemsetD8", O::Memset, SyncKind::None, -1, 0},
    {"cuMemsetD16", O::Memset, SyncKind::None, -1, 0},
    {"cuMemsetD32", O::Memset, SyncKind::None, -1, 0},
    {"cuMemsetD8Async", O::Memset, SyncKind::None, 3, 0, -1, -1, true},
    {"cuMemsetD16Async", O::Memset, SyncKind::None, 3, 0, -1, -1, true},
    {"cuMemsetD32Async", O::Memset, SyncKind::None, 3, 0, -1, -1, true},
    {"cuMemAlloc", O::Alloc, SyncKind::Allocation, -1, 0},
    {"cuMemAllocManaged", O::Alloc, SyncKind::Allocation, -1, 0, -1, -1, false, CopyDir::Unknown, true},
    {"cuMemAllocPitch", O::Alloc, SyncKind::Allocation, -1, 0},
    {"cuMemAllocAsync", O::Alloc, SyncKind::None, 2, 0, -1, -1, true},
    {"cuMemAllocHost", O::HostAlloc, SyncKind::Allocation, -1, 0},
    {"cuMemHostAlloc", O::HostAlloc, SyncKind::Allocation, -1, 0},
    {"cuMemHostRegister", O::HostRegister, SyncKind::None, -1, 0},
    {"cuMemFree", O::Free, SyncKind::Allocation, -1, 0},
    {"cuMemFreeAsync", O::Free, SyncKind::None, 1, 0, -1, -1, true},
    {"cuMemFreeHost", O::HostFree, SyncKind::Allocation, -1, 0},
    // ---- LibTorch streams (c10/cuda/CUDAStream.h, CUDAFunctions.h) ---------------------------
    {"c10::cuda::getCurrentCUDAStream", O::CurrentStream},
    {"c10::cuda::getDefaultCUDAStream", O::DefaultStream},
    {"c10::cuda::getStreamFromPool", O::PoolStream},
    {"c10::cuda::getStreamFromExternal", O::ExternalStream},
    {"c10::cuda::setCurrentCUDAStream", O::SetCurrentStream, SyncKind::None, 0},
    {"c10::cuda::CUDAStream::synchronize", O::Sync, SyncKind::Stream},
    {"c10::cuda::device_synchronize", O::Sync, SyncKind::Device},
    {"c10::cuda::stream_synchronize", O::Sync, SyncKind::Stream, 0},
    {"at::cuda::stream_synchronize", O::Sync, SyncKind::Stream, 0},
    {"at::cuda::device_synchronize", O::Sync, SyncKind::Device},
    {"torch::cuda::synchronize", O::Sync, SyncKind::Device},
    // ---- LibTorch events (ATen/cuda/CUDAEvent.h): the event is the object -------------------
    {"at::cuda::CUDAEvent::record", O::EventRecord, SyncKind::None, 0},
    {"at::cuda::CUDAEvent::recordOnce", O::EventRecord, SyncKind::None, 0},
    {"at::cuda::CUDAEvent::block", O::Wait, SyncKind::None, 0},
    {"at::cuda::CUDAEvent::synchronize", O::Sync, SyncKind::Event},
    // ---- c10 device-generic streams/events (c10/core/Stream.h, Event.h; torch::Event) ---------
    {"c10::Event::record", O::EventRecord, SyncKind::None, 0},
    {"c10::Event::recordOnce", O::EventRecord, SyncKind::None, 0},
    {"c10::Event::block", O::Wait, SyncKind::None, 0},
    {"c10::Event::synchronize", O::Sync, SyncKind::Event},
    {"c10::Stream::wait", O::Wait, SyncKind::None, -1, 0},  // the object stream waits on arg 0
    {"c10::Stream::synchronize", O::Sync, SyncKind::Stream},
    // ---- LibTorch tensors -----------------------------------------------------------------
    {"at::Tensor::record_stream", O::RecordStream, SyncKind::None, 0},
    {"c10::cuda::CUDACachingAllocator::recordStream", O::RecordStream, SyncKind::None, 1, 0},
    {"at::Tensor::item", O::TensorValueRead, SyncKind::ValueRead},
    {"at::Tensor::cpu", O::TensorToHost, SyncKind::BlockingCopy},
    {"at::Tensor::to", O::TensorTo},
    {"at::Tensor::cuda", O::TensorToDevice},
    {"at::Tensor::copy_", O::TensorCopyInto, SyncKind::None, -1, -1, 0},
    {"at::Tensor::pin_memory", O::PinMemory},
    {"at::Tensor::nonzero", O::TensorSyncOp, SyncKind::ValueRead},
    {"at::nonzero", O::TensorSyncOp, SyncKind::ValueRead, -1, 0},
    {"at::Tensor::masked_select", O::TensorSyncOp, SyncKind::ValueRead},
    {"at::masked_select", O::TensorSyncOp, SyncKind::ValueRead, -1, 0},
    {"at::Tensor::equal", O::TensorSyncOp, SyncKind::ValueRead},
    {"at::equal", O::TensorSyncOp, SyncKind::ValueRead, -1, 0},
    {"at::Tensor::is_nonzero", O::TensorSyncOp, SyncKind::ValueRead},
    {"at::Tensor::allclose", O::TensorSyncOp, SyncKind::ValueRead},
    {"at::allclose", O::TensorSyncOp, SyncKind::ValueRead, -1, 0},
    {"at::Tensor::backward", O::Backward},
    {"torch::autograd::backward", O::Backward, SyncKind::None, -1, 0},
    {"torch::autograd::grad", O::Backward, SyncKind::None, -1, 0},
    // ---- host clocks (SL501) ----------------------------------------------------------------
    {"std::chrono::steady_clock::now", O::Clock},
    {"std::chrono::system_clock::now", O::Clock},
    {"std::chrono::high_resolution_clock::now", O::Clock},
    {"clock_gettime", O::Clock},
    {"gettimeofday", O::Clock},
    {"clock", O::Clock},
};

// Tensor factories whose result lives where their options say (at:: and torch:: alike).
constexpr std::array<std::string_view, 22> kFactories = {
    "empty", "zeros", "ones", "full", "rand", "randn", "randint", "arange", "linspace",
    "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like",
    "empty_strided", "eye", "tensor", "from_blob", "randperm", "normal", "logspace"};

const std::unordered_map<std::string_view, const ApiEntry*>& index() {
  static const auto* map = [] {
    auto* m = new std::unordered_map<std::string_view, const ApiEntry*>();
    for (const ApiEntry& e : kTable) m->emplace(e.name, &e);
    return m;
  }();
  return *map;
}

void eraseAll(std::string& s, std::string_view what) {
  for (size_t p; (p = s.find(what)) != std::string::npos;) s.erase(p, what.size());
}

void replacePrefix(std::string& s, std::string_view from, std::string_view to) {
  if (s.compare(0, from.size(), from) == 0) s.replace(0, from.size(), to);
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

const ApiEntry* lookupApi(std::string_view name) {
  auto it = index().find(name);
  return it == index().end() ? nullptr : it->second;
}

std::string normalizeApiName(std::string_view qualifiedName) {
  std::string s(qualifiedName);
  eraseAll(s, "_V2::");     // libstdc++ inline namespace of system_clock/steady_clock
  eraseAll(s, "__1::");     // libc++
  eraseAll(s, "__cxx11::");
  replacePrefix(s, "at::TensorBase::", "at::Tensor::");
  replacePrefix(s, "torch::Tensor::", "at::Tensor::");
  replacePrefix(s, "at::cuda::getCurrentCUDAStream", "c10::cuda::getCurrentCUDAStream");
  replacePrefix(s, "at::cuda::getDefaultCUDAStream", "c10::cuda::getDefaultCUDAStream");
  replacePrefix(s, "at::cuda::getStreamFromPool", "c10::cuda::getStreamFromPool");
  replacePrefix(s, "at::cuda::setCurrentCUDAStream", "c10::cuda::setCurrentCUDAStream");
  replacePrefix(s, "at::cuda::CUDAStream::", "c10::cuda::CUDAStream::");
  // cuda.h renames driver entry points with macros (cuMemAlloc -> cuMemAlloc_v2) and, with
  // per-thread default streams, runtime ones too (cudaMemcpyAsync -> cudaMemcpyAsync_ptsz).
  for (bool again = true; again;) {
    again = false;
    for (std::string_view suf : {"_ptsz", "_ptds", "_v2", "_v3"})
      if (endsWith(s, suf) && s.size() > suf.size() + 2) {
        s.resize(s.size() - suf.size());
        again = true;
      }
  }
  return s;
}

model::CopyDir copyDirFromKind(std::string_view k) {
  if (k == "cudaMemcpyHostToDevice") return CopyDir::HostToDevice;
  if (k == "cudaMemcpyDeviceToHost") return CopyDir::DeviceToHost;
  if (k == "cudaMemcpyDeviceToDevice") return CopyDir::DeviceToDevice;
  return CopyDir::Unknown;  // cudaMemcpyDefault, cudaMemcpyHostToHost, anything computed
}

bool isTensorFactory(std::string_view n) {
  std::string_view base;
  if (n.substr(0, 4) == "at::") base = n.substr(4);
  else if (n.substr(0, 7) == "torch::") base = n.substr(7);
  else return false;
  for (std::string_view f : kFactories)
    if (base == f) return true;
  return false;
}

bool isStreamGuardType(std::string_view r) {
  return r == "c10::cuda::CUDAStreamGuard" || r == "c10::cuda::OptionalCUDAStreamGuard" ||
         r == "c10::cuda::CUDAMultiStreamGuard" || r == "c10::StreamGuard" ||
         r == "c10::OptionalStreamGuard";
}

bool isStreamType(std::string_view t) {
  return t == "cudaStream_t" || t == "CUstream" || t == "c10::cuda::CUDAStream" ||
         t == "at::cuda::CUDAStream" || t == "struct CUstream_st *" || t == "CUstream_st *";
}

bool isTorchEventType(std::string_view r) { return r == "at::cuda::CUDAEvent"; }

bool isEventType(std::string_view t) {
  return t == "cudaEvent_t" || t == "CUevent" || t == "struct CUevent_st *" || t == "CUevent_st *" ||
         isTorchEventType(t) || t == "c10::Event";
}

bool isTensorType(std::string_view r) { return r == "at::Tensor" || r == "at::TensorBase"; }

}  // namespace sl::cxx
