// What the C++ frontend knows about CUDA runtime/driver and LibTorch APIs, as one table.
//
// The lowering (Lowering.cpp) looks every call up here by its normalized qualified name and
// turns the entry into StreamModel events; it never hard-codes API names itself, and rules never
// see them except as `Event::api`. Adding an API is adding a row (CudaApiTable.cpp).
// No Clang headers: the table is unit-tested without parsing anything.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "model/StreamModel.h"

namespace sl::cxx {

// What a call does, from the model's point of view. Argument positions live in ApiEntry.
enum class ApiOp : uint8_t {
  Launch,         // kernel launch through an API (cudaLaunchKernel, cuLaunchKernel): Work on `stream`
  StreamCreate,   // creates a stream; the out-parameter `value` receives it
  EventCreate,    // creates an event into `value`
  CurrentStream,  // returns the thread's current stream (getCurrentCUDAStream)
  DefaultStream,  // returns the device's default stream (getDefaultCUDAStream)
  PoolStream,     // returns a side stream from a pool (getStreamFromPool)
  ExternalStream, // wraps a stream we cannot name (getStreamFromExternal)
  SetCurrentStream,  // makes `stream` the current stream until changed again
  Sync,           // the host waits: `sync` says on what (`stream` / `value` when it names one)
  Wait,           // stream `stream` waits on event `value`
  EventRecord,    // event `value` recorded on `stream`
  RecordStream,   // value `value` (or the object) marked as used on stream `stream`
  Copy,           // copy `src` -> `value`; direction from `dir` arg or `fixedDir`; async: stream
  Memset,         // GPU work writing `value` (on `stream`, or the legacy stream when absent)
  Alloc,          // device allocation into out-parameter `value` (async: on `stream`)
  HostAlloc,      // page-locked host allocation into out-parameter `value`
  HostRegister,   // page-locks existing host memory `value`
  Free,           // frees `value` (async: on `stream`)
  HostFree,       // frees page-locked host memory `value`
  Clock,          // reads a host clock
  Backward,       // autograd backward seeded from the object / `value`
  TensorFactory,  // at::empty & co: an allocation when the options say CUDA
  TensorValueRead,// item(): the host reads a GPU value, waiting for its producer
  TensorToHost,   // cpu(): blocking device-to-host copy
  TensorTo,       // to(...): a copy whose target/non_blocking come from the arguments
  TensorToDevice, // cuda(): host-to-device copy
  TensorCopyInto, // copy_(src, non_blocking): object <- src
  TensorSyncOp,   // nonzero, masked_select...: output size read back to the host
  PinMemory,      // pin_memory(): a page-locked copy of the object
};

struct ApiEntry {
  std::string_view name;  // normalized qualified name ("cudaMemcpyAsync", "at::Tensor::item")
  ApiOp op;
  model::SyncKind sync = model::SyncKind::None;  // host sync the call implies (besides the op)
  int8_t stream = -1;     // argument index of the stream (-1: none / implied)
  int8_t value = -1;      // argument index of the primary value (pointer, out-param, event)
  int8_t src = -1;        // Copy: argument index of the source
  int8_t dir = -1;        // Copy: argument index of a cudaMemcpyKind
  bool async = false;     // returns before the GPU work completes
  model::CopyDir fixedDir = model::CopyDir::Unknown;  // Copy with a direction in its name
  bool managed = false;   // Alloc: unified memory, which may live on the host
};

// The entry for `qualifiedName` (already normalized, see normalizeApiName), or nullptr.
const ApiEntry* lookupApi(std::string_view qualifiedName);

// Normalizes a Clang qualified name for lookup: drops inline namespaces libstdc++/libc++ use
// (`std::chrono::_V2::steady_clock::now` -> `std::chrono::steady_clock::now`), maps
// `at::TensorBase`/`torch::Tensor` methods to `at::Tensor`, `at::cuda::`/`torch::cuda::`
// stream helpers to `c10::cuda::`, and strips the versioned suffixes CUDA headers add with
// macros (`cuMemAlloc_v2`, `cudaMemcpyAsync_ptsz`).
std::string normalizeApiName(std::string_view qualifiedName);

// Copy direction named by a cudaMemcpyKind enumerator ("cudaMemcpyHostToDevice").
model::CopyDir copyDirFromKind(std::string_view enumerator);

// True for a tensor factory (at::empty, torch::zeros_like...): a new tensor whose device comes
// from its options.
bool isTensorFactory(std::string_view normalizedName);

// Record types the lowering recognizes by qualified name (after normalization).
bool isStreamGuardType(std::string_view recordName);   // CUDAStreamGuard & co
bool isStreamType(std::string_view typeName);          // cudaStream_t, CUstream, CUDAStream
bool isTorchEventType(std::string_view recordName);    // at::cuda::CUDAEvent
bool isEventType(std::string_view typeName);           // cudaEvent_t, CUevent, CUDAEvent, c10::Event
bool isTensorType(std::string_view recordName);        // at::Tensor, at::TensorBase

}  // namespace sl::cxx
