#include "python/PyApiTable.h"

#include <string>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

namespace sl::py {
namespace {

template <class T>
using Table = std::unordered_map<std::string_view, T>;

const Table<Api>& functions() {
  static const Table<Api> t = {
      {"torch.cuda.Stream", Api::StreamCreate},
      {"torch.cuda.streams.Stream", Api::StreamCreate},
      {"torch.Stream", Api::StreamCreate},
      {"torch.cuda.current_stream", Api::CurrentStream},
      {"torch.accelerator.current_stream", Api::CurrentStream},
      {"torch.cuda.default_stream", Api::DefaultStream},
      {"torch.cuda.stream", Api::StreamContext},
      {"torch.cuda.StreamContext", Api::StreamContext},
      {"torch.cuda.streams.StreamContext", Api::StreamContext},
      {"torch.cuda.Event", Api::EventCreate},
      {"torch.cuda.streams.Event", Api::EventCreate},
      {"torch.Event", Api::EventCreate},
      {"torch.cuda.synchronize", Api::DeviceSync},
      // NCCL's barrier blocks the host until the barrier's work on the device is done.
      {"torch.distributed.barrier", Api::DeviceSync},
      {"torch.cuda.graph", Api::GraphCapture},
      {"torch.cuda.graphs.graph", Api::GraphCapture},
      {"torch.accelerator.synchronize", Api::DeviceSync},
      {"torch.cuda.empty_cache", Api::AllocatorSync},
      {"time.time", Api::Clock},
      {"time.perf_counter", Api::Clock},
      {"time.monotonic", Api::Clock},
      {"time.time_ns", Api::Clock},
      {"time.perf_counter_ns", Api::Clock},
      {"time.monotonic_ns", Api::Clock},
      {"timeit.default_timer", Api::Clock},
      {"torch.autograd.backward", Api::Backward},
      {"torch.autograd.grad", Api::Backward},
      {"torch.autograd.Variable._execution_engine.run_backward", Api::Backward},
      {"torch.autograd.variable.Variable._execution_engine.run_backward", Api::Backward},
      {"torch._C._EngineBase.run_backward", Api::Backward},
      {"torch.empty", Api::Factory},
      {"torch.zeros", Api::Factory},
      {"torch.ones", Api::Factory},
      {"torch.full", Api::Factory},
      {"torch.rand", Api::Factory},
      {"torch.randn", Api::Factory},
      {"torch.randint", Api::Factory},
      {"torch.randperm", Api::Factory},
      {"torch.arange", Api::Factory},
      {"torch.linspace", Api::Factory},
      {"torch.eye", Api::Factory},
      {"torch.tensor", Api::Factory},
      {"torch.as_tensor", Api::Factory},
      {"torch.empty_strided", Api::Factory},
      {"torch.empty_like", Api::FactoryLike},
      {"torch.zeros_like", Api::FactoryLike},
      {"torch.ones_like", Api::FactoryLike},
      {"torch.full_like", Api::FactoryLike},
      {"torch.rand_like", Api::FactoryLike},
      {"torch.randn_like", Api::FactoryLike},
      {"torch.from_numpy", Api::HostTensor},
      {"torch.Tensor", Api::HostTensor},  // the legacy constructor: always a CPU tensor
      {"torch.FloatTensor", Api::HostTensor},
      {"torch.LongTensor", Api::HostTensor},
      {"torch.IntTensor", Api::HostTensor},
      {"torch.BoolTensor", Api::HostTensor},
      {"torch.nonzero", Api::SyncingOp},
      {"torch.unique", Api::SyncingOp},
      {"torch.masked_select", Api::SyncingOp},
      {"torch.argwhere", Api::SyncingOp},
      {"torch.distributed.all_reduce", Api::Collective},
      {"torch.distributed.broadcast", Api::Collective},
      {"torch.distributed.all_gather", Api::Collective},
      {"torch.distributed.all_gather_into_tensor", Api::Collective},
      {"torch.distributed.reduce_scatter", Api::Collective},
      {"torch.distributed.reduce_scatter_tensor", Api::Collective},
      {"torch.distributed.all_to_all", Api::Collective},
      {"torch.distributed.all_to_all_single", Api::Collective},
      {"torch.distributed.reduce", Api::Collective},
      {"torch.distributed.send", Api::Collective},
      {"torch.distributed.recv", Api::Collective},
      {"torch.distributed.isend", Api::Collective},
      {"torch.distributed.irecv", Api::Collective},
      {"torch.equal", Api::SyncingOp},
      {"torch.allclose", Api::SyncingOp},
      {"torch.is_nonzero", Api::SyncingOp},
      {"torch.is_tensor", Api::None},
      {"torch.is_floating_point", Api::None},
      {"torch.is_complex", Api::None},
      {"torch.numel", Api::None},
      {"torch.no_grad", Api::None},
      {"torch.enable_grad", Api::None},
      {"torch.inference_mode", Api::None},
      {"torch.set_grad_enabled", Api::None},
      {"torch.autocast", Api::None},
      {"torch.save", Api::None},
      {"torch.load", Api::None},
      {"torch.manual_seed", Api::None},
      {"torch.typename", Api::None},
      {"torch.device", Api::CudaDevice},
      {"torch.cuda.current_device", Api::CudaDevice},
  };
  return t;
}

const Table<Method>& tensorMethods() {
  static const Table<Method> t = {
      {"size", Method::Metadata},       {"dim", Method::Metadata},
      {"numel", Method::Metadata},      {"stride", Method::Metadata},
      {"element_size", Method::Metadata}, {"data_ptr", Method::Metadata},
      {"is_contiguous", Method::Metadata}, {"get_device", Method::Metadata},
      {"is_complex", Method::Metadata}, {"is_floating_point", Method::Metadata},  // dtype, no read
      {"nelement", Method::Metadata},   {"storage_offset", Method::Metadata},
      {"untyped_storage", Method::Metadata}, {"requires_grad_", Method::Metadata},
      {"register_hook", Method::Metadata}, {"retain_grad", Method::Metadata},
      {"item", Method::ValueRead},      {"tolist", Method::ValueRead},
      {"cpu", Method::ToCpu},           {"numpy", Method::Numpy},
      {"to", Method::To},               {"cuda", Method::Cuda},
      {"copy_", Method::CopyInto},      {"pin_memory", Method::PinMemory},
      {"record_stream", Method::RecordStream},
      {"backward", Method::Backward},
      {"nonzero", Method::SyncingOp},   {"unique", Method::SyncingOp},
      {"masked_select", Method::SyncingOp}, {"argwhere", Method::SyncingOp},
  };
  return t;
}

}  // namespace

Api lookupFunction(std::string_view canonical) {
  auto it = functions().find(canonical);
  if (it != functions().end()) return it->second;
  // DeepSpeed's and ColossalAI's accelerator abstraction, recognised when imported.
  if (canonical.ends_with(".get_accelerator") && canonical.find("accelerator.") != std::string_view::npos)
    return Api::DeviceModule;
  if (canonical == "torch.get_device_module") return Api::DeviceModule;
  // Everything else under torch's op namespaces is an op; torch.cuda/distributed/utils
  // helpers are not GPU work by themselves.
  auto under = [&](std::string_view p) { return canonical.substr(0, p.size()) == p; };
  if (under("torch.cuda.") || under("torch.distributed.") || under("torch.utils.") ||
      under("torch.autograd.") || under("torch.backends.") || under("torch.nn.Module") ||
      under("torch.jit.") || under("torch.compile") || under("torch._dynamo"))
    return Api::None;
  // `nn.Parameter(torch.randn(d))`, `nn.Buffer(...)`, `nn.Linear(...)`: module state and modules,
  // which Module.to()/.cuda() move with their module; not ops whose output stays where their
  // input was (a parameter built from a host tensor is on the GPU once the model is).
  if (under("torch.nn.") && !under("torch.nn.functional.")) {
    std::string_view rest = canonical.substr(canonical.rfind('.') + 1);
    if (!rest.empty() && std::isupper(static_cast<unsigned char>(rest[0]))) return Api::None;
  }
  if (under("torch.nn.functional.") || under("torch.") || under("torch.linalg.") ||
      under("torch.fft.") || under("torch.special."))
    return Api::TensorOp;
  return Api::None;
}

std::string acceleratorApi(std::string_view m) {
  if (m == "current_device_name" || m == "device_name" || m == "current_device") return "torch.cuda.current_device";
  for (const char* same : {"current_stream", "default_stream", "Stream", "Event", "stream", "synchronize",
                           "empty_cache", "StreamContext"})
    if (m == same) return "torch.cuda." + std::string(m);
  return "";
}

std::string duckDeviceApi(std::string_view m, bool handedStream) {
  // Generic names (`synchronize`, `empty_cache`, `current_device`) say nothing of the object,
  // nor does `Event()`: threading's and multiprocessing's (`mp_ctx.Event()`) are as common.
  for (const char* own : {"Stream", "current_stream", "default_stream"})
    if (m == own) return "torch.cuda." + std::string(m);
  if (m == "stream" && handedStream) return "torch.cuda.stream";
  return "";
}

Method lookupTensorMethod(std::string_view name) {
  auto it = tensorMethods().find(name);
  if (it != tensorMethods().end()) return it->second;
  if (name.size() > 1 && name.back() == '_' && name[name.size() - 2] != '_') return Method::InPlace;
  return Method::Other;
}

StreamMethod lookupStreamMethod(std::string_view name) {
  if (name == "synchronize") return StreamMethod::Synchronize;
  if (name == "wait_stream") return StreamMethod::WaitStream;
  if (name == "wait_event") return StreamMethod::WaitEvent;
  if (name == "record_event") return StreamMethod::RecordEvent;
  return StreamMethod::None;
}

EventMethod lookupEventMethod(std::string_view name) {
  if (name == "record") return EventMethod::Record;
  if (name == "wait") return EventMethod::Wait;
  if (name == "synchronize") return EventMethod::Synchronize;
  return EventMethod::None;
}

namespace {
// Tensor methods that compute a new tensor (not a view, not in place).
const std::unordered_set<std::string_view>& computingMethods() {
  static const std::unordered_set<std::string_view> t = {
      "clone", "float", "half", "bfloat16", "double", "long", "int", "new_zeros", "new_empty",
      "new_ones", "new_full", "new_tensor", "type_as", "sum", "mean", "max", "min", "norm",
      "abs", "sqrt", "exp", "log", "neg", "pow", "add", "sub", "mul", "div", "matmul", "mm",
      "bmm", "softmax", "sigmoid", "tanh", "relu", "cumsum", "argmax", "argmin", "topk", "sort",
      "repeat", "to_dense", "to_sparse"};
  return t;
}
}  // namespace

bool returnsNewStorage(std::string_view m) {
  if (computingMethods().count(m)) return true;
  switch (lookupTensorMethod(m)) {
    case Method::Other: case Method::InPlace: case Method::CopyInto: case Method::RecordStream: return false;
    default: return true;
  }
}

bool isHostValueBuiltin(std::string_view n) {
  return n == "bool" || n == "float" || n == "int" || n == "complex" || n == "range";
}

bool isPrintLike(std::string_view n) { return n == "print"; }

bool storesValue(std::string_view n) {
  static const std::unordered_set<std::string_view> t = {
      "append", "extend", "insert", "appendleft", "add", "put", "put_nowait", "setdefault"};
  return t.count(n) > 0;
}

bool keepsOrShowsValue(std::string_view n) {
  if (storesValue(n)) return true;
  static const std::unordered_set<std::string_view> t = {
      // More stores: the container keeps the object itself; another call later uses it.
      "push", "update", "__setitem__",
      // Lookups compare keys or identities, never a tensor's contents on the device.
      "get", "pop", "remove", "discard", "index", "count", "__getitem__", "__contains__", "keys", "items", "values",
      // Loggers, writers and trackers show the value on the host (a host read, lowered elsewhere).
      "info", "debug", "warning", "warn", "error", "exception", "critical", "log", "write", "print",
      "add_scalar", "add_scalars", "add_histogram", "add_image", "log_metrics", "log_dict", "record",
      // Assertions and comparisons of test helpers look at values on the host.
      "assertEqual", "assertTrue", "assertFalse", "assert_close"};
  return t.count(n) > 0;
}

bool isTensorOnlyMethod(std::string_view n) {
  static const std::unordered_set<std::string_view> t = {
      "record_stream", "backward", "data_ptr", "untyped_storage", "storage_offset", "element_size",
      "is_contiguous", "contiguous", "narrow", "detach", "detach_", "requires_grad_", "retain_grad",
      "register_hook", "numel", "nelement", "unsqueeze", "permute", "view", "view_as", "masked_fill",
      "masked_fill_", "index_select", "type_as", "new_zeros", "new_empty", "new_ones", "new_full",
      "new_tensor", "zero_", "fill_", "add_", "mul_", "sub_", "div_", "copy_", "clamp_", "half",
      "bfloat16", "float", "long", "pin_memory", "is_pinned", "masked_select", "nonzero"};
  return t.count(n) > 0;
}

bool isDeviceComputeMethod(std::string_view n) {
  // `sort` is also a list's method; the rest exist on tensors (and numpy arrays) only.
  return n != "sort" && (computingMethods().count(n) || combinesOperands(n) || isTensorOnlyMethod(n));
}

bool combinesOperands(std::string_view n) {
  static const std::unordered_set<std::string_view> t = {
      "add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "eq", "ne", "lt", "le", "gt",
      "ge", "maximum", "minimum", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
      "bitwise_xor", "matmul", "mm", "bmm", "add_", "sub_", "mul_", "div_", "masked_fill", "masked_fill_",
      "masked_select"};
  return t.count(n) > 0;
}

bool isHostBuiltin(std::string_view n) {
  static const std::unordered_set<std::string_view> t = {
      "len", "str", "repr", "int", "float", "bool", "complex", "isinstance", "issubclass", "getattr",
      "hasattr", "setattr", "list", "tuple", "dict", "set", "frozenset", "zip", "enumerate", "range",
      "min", "max", "sum", "any", "all", "print", "id", "hash", "type", "sorted", "reversed", "map",
      "filter", "iter", "next", "open", "format", "round", "abs", "divmod", "pow", "vars", "dir",
      "callable", "super", "object", "slice", "chr", "ord", "bytes", "bytearray", "memoryview"};
  return t.count(n) > 0;
}

namespace {
std::string lower(std::string_view s) {
  std::string l(s);
  for (auto& c : l) c = char(std::tolower(static_cast<unsigned char>(c)));
  return l;
}
// The last dotted part of a path, lower-cased: what the device and module heuristics read.
std::string lastNameLower(std::string_view path) {
  size_t dot = path.rfind('.');
  return lower(path.substr(dot == std::string_view::npos ? 0 : dot + 1));
}
bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

bool looksLikeTensorName(std::string_view name) {
  std::string l = lower(name);
  auto ends = [&](std::string_view suf) { return endsWith(l, suf); };
  if (l.rfind("num_", 0) == 0 || l.rfind("n_", 0) == 0 || ends("_len") || ends("_size") || ends("_count") ||
      ends("_shape") || ends("_idx") || ends("_index") || ends("_dim") || (ends("_steps") && l != "timesteps"))
    return false;
  for (const char* w : {"latent", "timestep", "embed", "mask", "hidden", "logit", "tensor", "feat", "pixel",
                        "noise", "weight", "grad", "output", "input", "emb", "attn", "query", "key", "value",
                        "score", "prob", "label", "target", "image", "video", "audio", "sample", "ids", "token"})
    if (l.find(w) != std::string::npos) return true;
  return l == "x" || l == "y" || l == "t" || l == "out";
}

bool looksLikeNumberName(std::string_view path) {
  std::string l = lastNameLower(path);
  auto ends = [&](std::string_view suf) { return endsWith(l, suf); };
  if (l.rfind("num_", 0) == 0 || l.rfind("n_", 0) == 0 || ends("_count") || ends("_size") || ends("_samples") ||
      ends("_steps") || ends("_step") || ends("_epoch") || ends("_tokens") || ends("_len"))
    return true;
  for (const char* w : {"lr", "learning_rate", "epoch", "step", "global_step", "batch_size", "samples", "tokens",
                        "seq_len", "world_size", "iteration", "iter"})
    if (l == w) return true;
  return false;
}

bool looksLikePredicateName(std::string_view path) {
  std::string l = lastNameLower(path);
  for (const char* pre : {"is_", "has_", "should_", "can_", "need_", "needs_", "_is_", "_has_", "_should_"})
    if (l.rfind(pre, 0) == 0) return true;
  return endsWith(l, "checker") || endsWith(l, "_check") || endsWith(l, "predicate");
}

bool looksLikeDeviceName(std::string_view path) {
  // Every name accepted below ends, case aside, in e (device), v (dev), k (local_rank), u (gpu)
  // or d (gpu_id, device_id): the others are refused before a lower-cased copy is made (the
  // prefilter asks about every distinct word of a file, the lowering about many names: ~1.5 %
  // of a check, issue 12).
  if (path.empty()) return false;
  const char lastChar = char(std::tolower(static_cast<unsigned char>(path.back())));
  if (lastChar != 'e' && lastChar != 'v' && lastChar != 'k' && lastChar != 'u' && lastChar != 'd') return false;
  std::string l = lastNameLower(path);
  if (l.find("cpu") != std::string::npos || l.find("host") != std::string::npos || l.find("meta") != std::string::npos)
    return false;
  return l == "device" || endsWith(l, "_device") || l == "dev" || l == "local_rank" || l == "gpu" || l == "gpu_id" ||
         l == "device_id" || l == "cuda_device";
}

bool looksLikeLossName(std::string_view path) {
  // Asked about every distinct word of a file by the prefilter: refuse without a copy first.
  bool any = false;
  for (size_t i = 0; i + 4 <= path.size() && !any; ++i)
    any = (path[i] | 0x20) == 'l' && (path[i + 1] | 0x20) == 'o' && (path[i + 2] | 0x20) == 's' && (path[i + 3] | 0x20) == 's';
  if (!any) return false;
  std::string l = lastNameLower(path);
  if (l.find("loss") == std::string::npos) return false;
  // Settings, helpers and masks named after the loss (`loss_scale`, `loss_fn`, `loss_mask`) are not one.
  for (const char* w : {"lossless", "scale", "fn", "func", "weight", "coef", "type", "name", "cfg", "config", "mask"})
    if (l.find(w) != std::string::npos) return false;
  return true;
}

bool looksLikeModuleName(std::string_view path) {
  std::string l = lastNameLower(path);
  for (const char* w : {"model", "module", "net", "encoder", "decoder", "layer", "head", "block",
                        "embed", "backbone", "policy", "critic", "actor", "transformer", "classifier",
                        "generator", "discriminator", "teacher", "student", "engine", "mlp", "unet", "vae"})
    if (l.find(w) != std::string::npos) return true;
  return l == "m" || l == "self";
}

}  // namespace sl::py
