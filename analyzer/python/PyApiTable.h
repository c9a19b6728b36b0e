// What PyTorch's Python API does to streams, in one table (STYLE.md: API knowledge in tables;
// rules never name APIs). Keys are canonical dotted names after import-alias resolution
// ("torch.cuda.synchronize"); tensor/stream/event methods are keyed by method name.
#pragma once
#include <string_view>

#include "model/StreamModel.h"

namespace sl::py {

enum class Api : uint8_t {
  None,
  StreamCreate,     // torch.cuda.Stream()
  CurrentStream,    // torch.cuda.current_stream()
  DefaultStream,    // torch.cuda.default_stream()
  StreamContext,    // torch.cuda.stream(s), StreamContext(s): a region when used in `with`
  EventCreate,      // torch.cuda.Event()
  DeviceSync,       // torch.cuda.synchronize()
  AllocatorSync,    // torch.cuda.empty_cache(): frees cached blocks (cudaFree synchronizes)
  Clock,            // time.time() and friends
  Backward,         // torch.autograd.backward / grad, engine run_backward
  Factory,          // torch.empty/zeros/randn/...: allocates where `device=` says
  FactoryLike,      // torch.empty_like(x): allocates on x's device unless device= given
  HostTensor,       // torch.from_numpy: a pageable host tensor
  SyncingOp,        // torch.nonzero, torch.unique...: output size depends on data: host waits
  Collective,       // torch.distributed.all_reduce...: GPU work reading/writing its tensors
  TensorOp,         // any other torch.* / F.* function: GPU work when given CUDA tensors
  CudaDevice,       // torch.device(...), torch.cuda.current_device(): names a device
  GraphCapture,     // torch.cuda.graph(...): synchronizes the device when entered
  DeviceModule,     // get_accelerator() (DeepSpeed, ColossalAI), torch.get_device_module():
                    // an object whose methods are torch.cuda's
};

// The torch.cuda API an accelerator object's method stands for
// (`get_accelerator().current_stream()` -> "torch.cuda.current_stream"), or "" when none.
std::string acceleratorApi(std::string_view method);
// The same for an object we know nothing of, recognised by the part of torch.cuda's API no
// other object has: a platform wrapper (`Worker.torch_platform`, `self.device_module`,
// `dev = torch.cuda`) whose `Stream()`, `current_stream()`, `default_stream()` are torch.cuda's,
// and whose `stream(s)` opens a region when handed a stream (`handedStream`).
std::string duckDeviceApi(std::string_view method, bool handedStream);

Api lookupFunction(std::string_view canonical);

enum class Method : uint8_t {
  Other,            // unknown method: GPU work on a CUDA tensor receiver
  Metadata,         // .size(), .dim(), .shape...: no GPU work, no sync
  ValueRead,        // .item(), .tolist(): host waits for the value
  ToCpu,            // .cpu(): blocking device-to-host copy
  Numpy,            // .numpy(): host read (CUDA tensors must be copied first)
  To,               // .to(...): copy or cast depending on arguments
  Cuda,             // .cuda(): host-to-device copy
  CopyInto,         // dst.copy_(src, non_blocking=...)
  PinMemory,        // .pin_memory(): page-locked host copy
  RecordStream,     // .record_stream(s)
  Backward,         // .backward()
  SyncingOp,        // .nonzero(), .unique()...
  InPlace,          // .add_(), .zero_(): writes the receiver
};

Method lookupTensorMethod(std::string_view name);

enum class StreamMethod : uint8_t { None, Synchronize, WaitStream, WaitEvent, RecordEvent };
StreamMethod lookupStreamMethod(std::string_view name);

enum class EventMethod : uint8_t { None, Record, Wait, Synchronize };
EventMethod lookupEventMethod(std::string_view name);

// Methods only torch tensors have (not numpy arrays, lists or modules): calling one says the
// receiver is a tensor, though not where it lives.
bool isTensorOnlyMethod(std::string_view name);
// A tensor computation method (`sum`, `mul`, `view`, `add_`...): called inside a side-stream
// region on a value of unknown kind, it queues GPU work there (Lowerer::queuedInRegion).
bool isDeviceComputeMethod(std::string_view n);
// Tensor methods that combine the receiver with their tensor arguments (`add`, `eq`, `matmul`,
// `masked_fill`): torch requires the operands on one device (a CPU 0-dim scalar aside).
bool combinesOperands(std::string_view name);
// Tensor methods whose result is new storage, not the receiver's (`clone`, `float`, `sum`, `.cpu()`,
// `.item()`): what they return is not the object's state. Views (`view`, `narrow`, `detach`),
// in-place methods and unknown ones hand the receiver's storage on.
bool returnsNewStorage(std::string_view method);
// Python builtins and common host functions whose results are never CUDA tensors.
bool isHostBuiltin(std::string_view name);
// A name that reads like an nn.Module ("model", "self.encoder", "net"): `.cuda()` on it moves
// a module, not a tensor.
bool looksLikeModuleName(std::string_view path);

// A name that reads like a tensor ("latents", "attention_mask", "timesteps") rather than a count
// or flag ("num_steps", "seq_len", "strength"): used to split a call's bundled results.
bool looksLikeTensorName(std::string_view name);

// A variable or attribute that names the device code runs on ("device", "self._device",
// "local_rank", "val.device"): in a file that uses CUDA, that device is a GPU.
bool looksLikeDeviceName(std::string_view path);
// A count, size, step or learning rate by its name (`consumed_samples`, `global_batch_size`,
// `lr`, `num_tokens`): a Python number, not a tensor.
bool looksLikeNumberName(std::string_view path);

// A callable named as a yes/no question (`self.tensor_need_offloading_checker`, `is_valid`,
// `has_nan`, `should_skip`): what it returns is a flag, not a tensor.
bool looksLikePredicateName(std::string_view path);

// A name that reads like a training loss or a container of losses ("loss", "kl_loss",
// "self.loss_dict", "losses"): a loss is computed where the model runs.
bool looksLikeLossName(std::string_view path);

// Python builtins that read a tensor's value on the host: bool(t), float(t), print(t)...
bool isHostValueBuiltin(std::string_view name);
bool isPrintLike(std::string_view name);

// Methods that put their argument into a container or queue (`bufs.append(t)`, `q.put(t)`):
// the container keeps it alive, and another call uses it later.
bool storesValue(std::string_view method);

// Methods of an object we do not know that keep, look up or show a value rather than run GPU work
// on it (`bufs.append(t)`, `cache.get(k)`, `logger.info(t)`): a tensor handed there is not used
// on the GPU by the call. Any other method of such an object handed a CUDA tensor
// (`self._manager.allreduce(self._grads[k])`, `comm.send(t)`) is taken to run GPU work on it.
bool keepsOrShowsValue(std::string_view method);

}  // namespace sl::py
