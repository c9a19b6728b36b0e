// Calls of known APIs and of methods on known tensors, streams and events.
#include <algorithm>
#include <cctype>

#include "python/PyFunctionRoles.h"
#include "python/PyLowering.h"

namespace sl::py {

using model::CopyDir;
using model::EventKind;
using model::StreamKind;
using model::StreamRef;
using model::SyncKind;
using model::Tri;

namespace {
// The receiver of `.to(...)`/`.cuda()` is an empty tensor made right there: `torch.Tensor()`,
// `torch.LongTensor()`, `torch.Tensor([])`, `torch.tensor([])`, `torch.empty(0)`. Copying zero
// elements returns before any transfer, so nothing waits (bench/precision: judged wrong).
bool emptyTensorLiteral(TSNode recv, std::string_view src) {
  if (!is(recv, "call")) return false;
  std::string_view fn = text(field(recv, "function"), src);
  std::string_view last = fn.substr(fn.rfind('.') == std::string_view::npos ? 0 : fn.rfind('.') + 1);
  TSNode args = field(recv, "arguments");
  if (!is(args, "argument_list")) return false;
  std::vector<TSNode> pos;
  for (TSNode x : NamedChildren(args))
    if (!is(x, "keyword_argument") && !is(x, "comment")) pos.push_back(x);
  auto emptyList = [&](TSNode x) { return (is(x, "list") || is(x, "tuple")) && ts_node_named_child_count(x) == 0; };
  if (last.ends_with("Tensor"))  // torch.Tensor, torch.LongTensor, torch.cuda.FloatTensor
    return pos.empty() || (pos.size() == 1 && emptyList(pos[0]));
  if (last == "tensor") return pos.size() == 1 && emptyList(pos[0]);
  if (last == "empty" || last == "zeros") return pos.size() == 1 && text(pos[0], src) == "0";
  return false;
}

Value make(Kind k, StreamRef s = {}) {
  Value v;
  v.fact.kind = k;
  v.fact.stream = std::move(s);
  v.fact.local = true;
  return v;
}
}  // namespace

// `call.pin_memory()`, `call.cuda(...)`: the call's result is a host tensor on its way to the GPU.
bool Lowerer::resultMovedToDevice(TSNode call) const {
  TSNode parent = ts_node_parent(call);
  if (!is(parent, "attribute") || !ts_node_eq(field(parent, "object"), call)) return false;
  const std::string_view m = text(field(parent, "attribute"), mc_.src);
  return m == "pin_memory" || m == "cuda";
}

Value Lowerer::callApi(Api api, const Value& callee, CallArgs& a) {
  const std::string& name = callee.canonical;
  TSNode at = a.call;
  auto anyCuda = [&] {
    return std::any_of(a.pos.begin(), a.pos.end(), [](const Arg& x) { return isCuda(x.value); });
  };
  auto argValues = [&] {
    std::vector<Value> v;
    for (const auto& x : a.pos) v.push_back(x.value);
    return v;
  };
  // Positional arguments of torch ops are tensors (or numbers, which have no path). An op whose
  // result is pinned or moved to the GPU right away (`torch.stack(samples).pin_memory()`,
  // `torch.cat(parts).cuda(non_blocking=True)`) ran on the host: a CPU collation inside a copy
  // stream's region, whose inputs that stream never reads.
  if ((api == Api::TensorOp || api == Api::SyncingOp || api == Api::Collective || api == Api::Backward) &&
      !(api == Api::TensorOp && resultMovedToDevice(at)))
    for (auto& x : a.pos) {
      // `s.cuda_stream`: a stream's raw handle (evaluated as the stream), no tensor.
      if (is(x.node, "attribute") && text(field(x.node, "attribute"), mc_.src) == "cuda_stream") continue;
      if (is(x.node, "identifier") || is(x.node, "attribute"))
        asTensor(x.value, x.node, "is passed to '" + name + "'");
      useOnStream(x.value, x.node);
    }
  switch (api) {
    case Api::StreamCreate:
      // torch.cuda.Stream() hands out one of a fixed pool of streams (no driver call).
      emit(EventKind::StreamCreate, at, name).pooled = true;
      return make(Kind::Stream, StreamRef{StreamKind::Side, ""});
    case Api::CurrentStream:  // inside `with stream(s)`, current_stream() *is* s
      return make(Kind::Stream, model::effectiveStream(fn_, scope_));
    case Api::DefaultStream: return make(Kind::Stream, StreamRef{StreamKind::Default, ""});
    case Api::StreamContext: {
      const Arg* s = a.at(0, "stream");
      if (!s || text(s->node, mc_.src) == "None") return make(Kind::StreamContext, StreamRef::current());
      StreamRef ref = s->value.fact.kind == Kind::Stream
                          ? s->value.fact.stream
                          : StreamRef{StreamKind::Unknown, std::string(text(s->node, mc_.src))};
      if (ref.isSide() && ref.name.empty()) ref.name = std::string(text(s->node, mc_.src));
      return make(Kind::StreamContext, ref);
    }
    case Api::EventCreate:
      emit(EventKind::EventCreate, at, name);
      return make(Kind::Event);
    case Api::DeviceSync: emit(EventKind::HostSync, at, name).sync = SyncKind::Device; return {};
    case Api::AllocatorSync: emit(EventKind::HostSync, at, name).sync = SyncKind::Allocation; return {};
    case Api::Clock: emit(EventKind::Clock, at, name); return {};
    case Api::Backward: {
      auto& e = emit(EventKind::Backward, at, name);
      if (const Fact* f = strongestCuda(argValues())) stamp(e, *f);
      // The graph starts from the outputs (and their gradients); autograd.grad's `inputs` are
      // leaves whose producers say nothing about where the forward ran.
      size_t n = name == "torch.autograd.grad" ? std::min<size_t>(a.pos.size(), 1) : a.pos.size();
      for (size_t k = 0; k < n; ++k)
        if (isCuda(a.pos[k].value) && !a.pos[k].value.path.empty()) e.reads.push_back(a.pos[k].value.path);
      e.srcTemporary = n > 0 && is(a.pos[0].node, "call");  // `backward(model(x).sum())`
      return {};
    }
    case Api::Factory: {
      Kind dev = deviceKind(a.keyword("device"));
      if (dev == Kind::CudaDevice) {
        const Arg* d = a.keyword("device");
        Value v = cudaNew(at, "'" + name + "' allocates on the GPU (device=" + std::string(text(d->node, mc_.src)) + ")",
                          deviceConfidence(d));
        if (d->value.fact.why) v.fact.why = because(d->value.fact.why, locOf(at), v.fact.why->ev.text);
        stamp(emit(EventKind::Alloc, at, name), v.fact);
        // torch.tensor([...], device="cuda") builds the tensor in pageable host memory and copies
        // it with a blocking copy: the host waits for the stream's queued work. An empty literal
        // (`torch.tensor([], device=...)`) copies nothing: torch skips the copy of no elements.
        bool empty = !a.pos.empty() && (is(a.pos[0].node, "list") || is(a.pos[0].node, "tuple")) &&
                     ts_node_named_child_count(a.pos[0].node) == 0;
        if ((name == "torch.tensor" || name == "torch.as_tensor") && !a.pos.empty() && !isCuda(a.pos[0].value) && !empty) {
          auto& c = emit(EventKind::Copy, at, name);
          c.dir = CopyDir::HostToDevice, c.srcPinned = Tri::No, c.srcTemporary = true;
          stamp(c, v.fact);
          auto& s = emit(EventKind::HostSync, at, name);
          s.sync = SyncKind::BlockingCopy;
          stamp(s, v.fact);
        }
        return v;
      }
      if (dev == Kind::HostDevice) {
        Value v = make(Kind::HostTensor);
        v.fact.pinned = truthy(a.keyword("pin_memory"));
        return v;
      }
      return {};
    }
    case Api::FactoryLike: {
      const Arg* dev = a.keyword("device");
      // `torch.empty_like(t, device="cpu")` is a host tensor whatever `t` is.
      const Kind onDevice = dev ? deviceKind(dev) : Kind::Unknown;
      Kind k = dev ? (onDevice == Kind::CudaDevice ? Kind::CudaTensor
                      : onDevice == Kind::HostDevice ? Kind::HostTensor
                                                     : Kind::Unknown)
                   : (a.pos.empty() ? Kind::Unknown : a.pos[0].value.fact.kind);
      if (k == Kind::CudaTensor) {
        Value v = dev ? cudaNew(at, "'" + name + "' allocates on the GPU (device=" + std::string(text(dev->node, mc_.src)) + ")")
                      : cudaFrom(a.pos[0].value.fact);
        stamp(emit(EventKind::Alloc, at, name), v.fact);
        return v;
      }
      if (k != Kind::HostTensor) return {};
      Value v = make(Kind::HostTensor);
      v.fact.pinned = truthy(a.keyword("pin_memory"));
      return v;
    }
    case Api::HostTensor: return make(Kind::HostTensor);
    case Api::SyncingOp:
      if (!anyCuda()) return {};
      {
        auto vs = argValues();
        const Fact& f = *strongestCuda(vs);
        emitWork(at, vs, name);
        auto& s = emit(EventKind::HostSync, at, name);
        s.sync = SyncKind::ValueRead;
        stamp(s, f);
        return cudaFrom(f);
      }
    case Api::Collective: {
      if (!anyCuda()) return {};
      auto& e = emitWork(at, argValues(), name);
      e.writes = e.reads;
      return {};
    }
    case Api::TensorOp:
      if (anyCuda()) {
        auto vs = argValues();
        emitWork(at, vs, name);
        return cudaFrom(*strongestCuda(vs));
      }
      if (std::any_of(a.pos.begin(), a.pos.end(), [](const Arg& x) { return x.value.fact.kind == Kind::HostTensor; }))
        return make(Kind::HostTensor);
      return {};
    case Api::CudaDevice: {
      if (name != "torch.device") return make(Kind::CudaDevice);
      const Arg* d = a.at(0, "type");
      if (d && d->value.fact.kind == Kind::CudaDevice) return d->value;  // keeps its reasons
      Kind k = d ? deviceKind(d) : Kind::Unknown;
      return k == Kind::Unknown ? Value{} : make(k);
    }
    case Api::GraphCapture: {
      // Entering a capture synchronizes the device: the capture stream starts after all work
      // queued before (a device-wide wait, not a host sync inside the region).
      auto& w = emit(EventKind::Wait, at, name);
      w.other = StreamRef{StreamKind::Unknown, "the whole device"};
      w.value = model::kDeviceWideWait;
      return {};
    }
    case Api::DeviceModule: {
      Value v;
      v.canonical = "torch.cuda";  // a module-like object: its methods are torch.cuda's
      return v;
    }
    case Api::None: return {};
  }
  return {};
}

// `self._manager.allreduce(self._grads[k])`, `comm.send(t, peer)`: a method of an object we do
// not know (another class's, a library's) handed CUDA tensors uses them on the GPU, on the stream
// current at the call, like a project helper would. Its summary is unknown, so what it reads is
// what it is handed; storing and showing methods (keepsOrShowsValue) are no such use.
void Lowerer::objectCallWork(const Value& recv, std::string_view method, const CallArgs& a) {
  if (recv.path == "self" || keepsOrShowsValue(method)) return;
  std::vector<Value> vs;
  for (const auto& x : a.pos) vs.push_back(pointedTo(x.value));
  for (const auto& [k, x] : a.kw) vs.push_back(pointedTo(x.value));
  std::erase_if(vs, [](const Value& v) { return !isCuda(v) || v.fact.conf < model::Confidence::Medium || v.path.empty(); });
  if (vs.empty()) return;
  emitWork(a.call, vs, recv.path + "." + std::string(method)).assumed = true;
}

Value Lowerer::callMethod(const Value& in, std::string_view method, CallArgs& a) {
  TSNode at = a.call;
  Value recv = in;
  // `x.wait_stream(...)`/`x.wait_event(...)`/`x.record_event()` name stream APIs whatever `x`
  // is: a missed wait or hand-off would make the ordering rules cry wolf.
  // Tensors have no such methods: a receiver guessed to be one (a project helper's result
  // handed a device) is a stream all the same.
  // `t.data_ptr()`: the address of a CUDA tensor's storage. A call handed it (a raw copy on a
  // stream, `cudaMemcpyAsync(dst_ptr, src_ptr, n, stream)` in a helper) uses the tensor.
  if (method == "data_ptr" && isCuda(recv) && !recv.path.empty()) {
    Fact f{Kind::DevicePointer};
    f.conf = recv.fact.conf;
    f.why = recv.fact.why;
    f.pointee = recv.path;
    return Value{f, "", "", true};
  }
  if ((recv.fact.kind == Kind::Unknown || recv.fact.kind == Kind::CudaTensor) && !recv.path.empty() &&
      (method == "wait_stream" || method == "wait_event" || method == "record_event"))
    recv.fact = Fact{Kind::Stream, StreamRef{StreamKind::Unknown, recv.path}};
  // x.repeat_interleave(counts) sizes its output from counts' values unless told output_size:
  // with counts on the GPU the host waits to read them.
  if (method == "repeat_interleave" && !a.pos.empty() && isCuda(a.pos[0].value) && !a.keyword("output_size")) {
    Value counts = a.pos[0].value;
    emitWork(a.call, {recv, counts}, "Tensor.repeat_interleave");
    auto& s = emit(EventKind::HostSync, a.call, "Tensor.repeat_interleave");
    s.sync = SyncKind::ValueRead;
    stamp(s, counts.fact);
    return cudaFrom(counts.fact);
  }
  // `scaler.scale(loss)` (a GradScaler, `self._grad_scaler`): the loss times the scale, on the
  // loss's device, so `scaler.scale(loss).backward()` is the backward of a CUDA loss.
  if (method == "scale" && a.pos.size() == 1 && isCuda(a.pos[0].value) && recv.fact.kind == Kind::Unknown) {
    std::string obj = recv.path.substr(recv.path.rfind('.') + 1);
    for (char& c : obj) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (obj.find("scaler") != std::string::npos) {
      emitWork(a.call, {a.pos[0].value}, recv.path + ".scale");
      return cudaFrom(a.pos[0].value.fact);
    }
  }
  combinedWithGpu(recv, method, a);
  if (method == "log") lightningLog(recv, a);
  if (recv.fact.kind == Kind::Unknown && !recv.path.empty()) {
    if (method == "cuda" || method == "to") return toDevice(recv, method, a);
    const bool readsValue = lookupTensorMethod(method) == Method::ValueRead || method == "cpu";
    if (isTensorOnlyMethod(method)) usedAsTensor(recv, a.call, "calls ." + std::string(method) + "(), a tensor method");
    // `.item()`/`.tolist()`/`.cpu()` of an input of an nn.Module's forward: a tensor read on
    // the host (numbers and lists have no such methods), on the module's device.
    else if (readsValue && forwardInput(recv.path)) usedAsTensor(recv, a.call, "calls ." + std::string(method) + "()");
    // `loss.item()`: numbers have no .item(); what is read is a loss tensor (asTensor says where).
    else if (readsValue && namedAsLoss(recv.path, a.call)) asTensor(recv, a.call, "calls ." + std::string(method) + "()");
    // `y.sum()` inside `with torch.cuda.stream(s):`: the region exists to queue GPU work on s.
    else if (isDeviceComputeMethod(method)) queuedInRegion(recv, a.call, method);
    // `x.cpu()` in the model's own per-step code (a forward, an autograd.Function, an optimizer's
    // step, a hook), in a project that uses CUDA: a copy that only a GPU tensor needs (it is a
    // no-op on the host), written where the GPU runs (offloading a saved input in an
    // autograd.Function's forward). Not in functions hot by their name (`validation_step`,
    // `data_step`): there the batch is often still the loader's and the host needs the values.
    else if (method == "cpu" && !fn_.hot.empty() && !hotByNameOnly(fn_.hot) && !cpuFunction_ && !cpuBranch_) {
      asTensor(recv, a.call, "is copied to the host by .cpu()");
      if (recv.fact.kind == Kind::CudaTensor && recv.fact.conf == model::Confidence::Low)
        promote(recv, a.call, "a copy to the host that only a GPU tensor needs, in `" +
                                  fn_.name.substr(fn_.name.rfind('.') + 1) + "()`, which runs every step (" + fn_.hot +
                                  ") in a project that uses CUDA");
    }
    if (recv.fact.kind == Kind::Unknown) {
      // `.item()`, `.tolist()`, `.cpu()`, `x.synchronize()` of something unknown: perhaps a
      // wait for the GPU. Low confidence (hidden by default) — but enough that a timer after
      // it is synced (`outputs = [o.cpu() for o in outputs]; t1 = time.perf_counter()`).
      Method m = lookupTensorMethod(method);
      if (m == Method::ValueRead || method == "synchronize" || method == "cpu") {
        auto& s = emit(EventKind::HostSync, a.call, recv.path + "." + std::string(method));
        s.sync = m == Method::ValueRead ? SyncKind::ValueRead
                 : method == "cpu"      ? SyncKind::BlockingCopy
                                        : SyncKind::Device;
        s.confidence = model::Confidence::Low;
        // Whatever was copied, the copy is in host memory (`cpu_tokens[i].tolist()` reads no GPU).
        return method == "cpu" ? make(Kind::HostTensor) : Value{};
      }
      // `self.model.forward(x)`: a module called through its forward.
      if (method == "forward") return moduleCall(recv, recv.path + ".forward", a);
      objectCallWork(recv, method, a);
      return deviceResult(a, recv.path + "." + std::string(method));
    }
  }
  switch (recv.fact.kind) {
    case Kind::CudaTensor: return callTensorMethod(recv, method, a);
    case Kind::CudaModule:
      // Iterating a GPU module's parameters or buffers yields CUDA tensors.
      if (method == "parameters" || method == "buffers") {
        Value v = cudaFrom(recv.fact);
        v.fact.conf = std::min(v.fact.conf, model::Confidence::Medium);
        return v;
      }
      if (method == "forward") return moduleCall(recv, recv.path + ".forward", a);
      return {};
    case Kind::HostTensor: return callHostTensorMethod(recv, method, a);
    case Kind::Stream: {
      auto& s = recv.fact.stream;
      switch (lookupStreamMethod(method)) {
        case StreamMethod::Synchronize: {
          auto& e = emit(EventKind::HostSync, at, "Stream.synchronize");
          e.sync = SyncKind::Stream, e.stream = s, e.streamExplicit = true;
          return {};
        }
        case StreamMethod::WaitStream: {
          const Arg* o = a.at(0, "stream");
          auto& e = emit(EventKind::Wait, at, "Stream.wait_stream");
          e.stream = s, e.streamExplicit = true;
          e.other = o && o->value.fact.kind == Kind::Stream
                        ? o->value.fact.stream
                        : StreamRef{StreamKind::Unknown, o ? std::string(text(o->node, mc_.src)) : ""};
          return {};
        }
        case StreamMethod::WaitEvent: {
          const Arg* ev = a.at(0, "event");
          auto& e = emit(EventKind::Wait, at, "Stream.wait_event");
          e.stream = s, e.streamExplicit = true;
          e.value = ev ? ev->value.path : "";
          if (e.value.empty()) e.value = "<event>";
          return {};
        }
        case StreamMethod::RecordEvent: {
          auto& e = emit(EventKind::EventRecord, at, "Stream.record_event");
          e.stream = s, e.streamExplicit = true;
          const Arg* ev = a.at(0, "event");
          e.value = ev ? ev->value.path : "";
          return make(Kind::Event);
        }
        case StreamMethod::None: return {};
      }
      return {};
    }
    case Kind::Event: {
      const Arg* st = a.at(0, "stream");
      bool named = st && st->value.fact.kind == Kind::Stream;
      switch (lookupEventMethod(method)) {
        case EventMethod::Record: {
          auto& e = emit(EventKind::EventRecord, at, "Event.record");
          if (named) e.stream = st->value.fact.stream, e.streamExplicit = true;
          e.value = recv.path;
          return {};
        }
        case EventMethod::Wait: {
          auto& e = emit(EventKind::Wait, at, "Event.wait");
          if (named) e.stream = st->value.fact.stream, e.streamExplicit = true;
          e.value = recv.path.empty() ? "<event>" : recv.path;
          return {};
        }
        case EventMethod::Synchronize: {
          auto& e = emit(EventKind::HostSync, at, "Event.synchronize");
          e.sync = SyncKind::Event;
          e.value = recv.path;
          return {};
        }
        case EventMethod::None: return {};
      }
      return {};
    }
    default: return {};
  }
}

Value Lowerer::copyToDevice(const Value& src, CallArgs& a, const char* api) {
  // `.to(device)` is as sure as the device variable; `.cuda()` names the GPU itself.
  const Arg* d = std::string_view(api) == "Tensor.to" ? a.at(0, "device") : nullptr;
  Value v = cudaNew(a.call, std::string("copied to the GPU by ") + api +
                                (d ? "(" + std::string(text(d->node, mc_.src)) + ")" : "()"),
                    deviceConfidence(d));
  if (d && d->value.fact.kind == Kind::CudaDevice && d->value.fact.why) v.fact.why = because(d->value.fact.why, v.fact.why->ev.loc, v.fact.why->ev.text);
  // A host receiver of unknown kind (a loader batch) is only probably a tensor.
  if (src.fact.kind == Kind::Unknown) v.fact.conf = std::min(v.fact.conf, model::Confidence::Medium);
  // Page-locked memory copied without blocking goes to the GPU, whatever the device variable
  // says: pinning is for uploads (`cpu_copy.to(self.device, non_blocking=True)`).
  const Arg* nb = a.keyword("non_blocking");
  if (src.fact.kind == Kind::HostTensor && src.fact.pinned && truthy(nb) && v.fact.conf == model::Confidence::Low) {
    v.fact.conf = model::Confidence::Medium;
    v.fact.why = because(v.fact.why, locOf(a.call), "a non-blocking copy of page-locked memory, which goes to the GPU");
  }
  stamp(emit(EventKind::Alloc, a.call, api), v.fact);
  auto& c = emit(EventKind::Copy, a.call, api);
  c.dir = CopyDir::HostToDevice;
  c.nonBlocking = truthy(nb);
  // A loader's batch may come from pinned memory (pin_memory=True): unknown, not pageable.
  c.srcPinned = src.fact.pinned ? Tri::Yes : src.fact.kind == Kind::Unknown || src.fact.pinUnknown ? Tri::Unknown : Tri::No;
  c.srcTemporary = src.path.empty();
  c.srcStreamTracked = src.fact.pinned;  // torch's pinned memory: the caching host allocator
  if (!src.path.empty()) c.reads.push_back(src.path);
  stamp(c, v.fact);
  // Without non_blocking, torch copies with cudaMemcpyAsync and then synchronizes the stream:
  // the host waits for everything queued before the copy. (`non_blocking=flag` may be either;
  // an explicit `non_blocking=False` is a choice the author made.)
  TSNode fn = field(a.call, "function");
  bool empty = is(fn, "attribute") && emptyTensorLiteral(field(fn, "object"), mc_.src);
  if (!nb && !empty) {
    auto& s = emit(EventKind::HostSync, a.call, api);
    s.sync = SyncKind::BlockingCopy;
    stamp(s, v.fact);
  }
  return v;
}

// `self.log("lr", lr)` in a LightningModule, `pl_module.log("consumed_samples", n)` in a
// callback: Lightning turns a Python number into `torch.tensor(value, device=self.device)`, a
// blocking upload from pageable memory that waits for the work queued before it (NeMo
// 294ddff1). A tensor is logged as it is. So the upload is certain only for a number: a
// literal, `len(...)`/`int(...)`/`float(...)`, or a value named as a count, size, step or
// learning rate whose kind is unknown. The wait is Lightning's, not a read the caller asked
// for (Event::unrequested): no deliberate logging, and `if self.output_log:` does not make it
// occasional (only an interval guard does).
void Lowerer::lightningLog(const Value& recv, CallArgs& a) {
  if (!mc_.touchesCuda || !mc_.namesLightning) return;
  std::string_view obj = recv.path.substr(recv.path.rfind('.') + 1);  // npos + 1 == 0
  if (!(obj == "pl_module" || obj == "lightning_module" || (recv.path == "self" && !className_.empty()))) return;
  const Arg* v = a.at(1, "value");
  if (!v || v->value.fact.kind != Kind::Unknown) return;
  TSNode n = v->node;
  bool number = is(n, "integer") || is(n, "float");
  if (is(n, "call")) {
    std::string_view f = text(field(n, "function"), mc_.src);
    number = f == "len" || f == "int" || f == "float" || f == "round";
  } else if (is(n, "identifier") || is(n, "attribute")) {
    number = !v->value.path.empty() && looksLikeNumberName(v->value.path);
  }
  if (!number) return;
  auto& e = emit(EventKind::HostSync, a.call, "LightningModule.log");
  e.sync = SyncKind::BlockingCopy;
  e.unrequested = true;
  e.confidence = model::Confidence::Medium;
  e.evidence = chainOf(because(nullptr, locOf(n), "'" + std::string(text(n, mc_.src)) +
                                                       "' is a Python number: Lightning uploads it with torch.tensor(value, "
                                                       "device=self.device), a blocking copy"));
}

Value Lowerer::callHostTensorMethod(const Value& recv, std::string_view method, CallArgs& a) {
  Method m = lookupTensorMethod(method);
  switch (m) {
    case Method::Cuda: return copyToDevice(recv, a, "Tensor.cuda");
    case Method::To: {
      const Arg* d = a.at(0, "device");
      if (d && deviceKind(d) == Kind::CudaDevice) return copyToDevice(recv, a, "Tensor.to");
      return d && deviceKind(d) == Kind::Unknown ? Value{} : recv;
    }
    case Method::PinMemory: {
      Value v = make(Kind::HostTensor);
      v.fact.pinned = true;
      return v;
    }
    case Method::InPlace:
      if (!recv.path.empty()) emit(EventKind::HostWrite, a.call, "Tensor." + std::string(method)).value = recv.path;
      return recv;
    case Method::CopyInto: {
      const Arg* src = a.at(0, "src");
      if (src && !isCuda(src->value) && !recv.path.empty())
        emit(EventKind::HostWrite, a.call, "Tensor.copy_").value = recv.path;
      if (src && isCuda(src->value)) {
        const Arg* nbArg = a.keyword("non_blocking");
        bool nb = truthy(nbArg);
        if (!nb) {
          // `non_blocking=flag`: either; only a copy that surely blocks is a sync.
          if (nbArg && text(nbArg->node, mc_.src) != "False") return recv;
          auto& s = emit(EventKind::HostSync, a.call, "Tensor.copy_");
          s.sync = SyncKind::BlockingCopy;
          stamp(s, src->value.fact);
          s.reads.push_back(src->value.path);
          return recv;
        }
        Value from = src->value;
        copiedAsync(from, src->node);
        auto& c = emit(EventKind::Copy, a.call, "Tensor.copy_");
        c.dir = CopyDir::DeviceToHost, c.nonBlocking = true, c.value = recv.path;
        stamp(c, from.fact);
        if (!src->value.path.empty()) c.reads.push_back(src->value.path);
        if (!recv.path.empty()) {
          Fact& dst = env_[recv.path];
          dst.pendingCopy = true, dst.conf = from.fact.conf, dst.why = from.fact.why;
        }
      }
      return recv;
    }
    case Method::ValueRead:
      readValue(a.call, recv, SyncKind::ValueRead, "Tensor.numpy");
      return {};
    // A host tensor's .numpy() is a view of the same memory: nothing is read yet (a
    // pending copy stays pending for whoever reads the array).
    case Method::Numpy: return recv;
    case Method::Metadata: return {};
    default: {
      if (recv.fact.pendingCopy) {
        auto& r = emit(EventKind::HostRead, a.call, std::string(method));
        r.value = recv.path;
        stamp(r, recv.fact);
      }
      // A view (`.contiguous()`, `.view()`) or a fresh pageable copy: of a tensor whose
      // pinning is unknown, unknown either way.
      Value v = make(Kind::HostTensor);
      v.fact.pinUnknown = recv.fact.pinUnknown;
      return v;
    }
  }
}

// `attn.index_select(0, idx)`, `x.gather(1, idx)`: torch refuses an index on another device
// than the tensor it indexes, so an index of unknown or guessed device is on the GPU, as surely
// as that tensor (fairseq 1df3e50a: the beam indices of finalize_hypos).
void Lowerer::indexOnSameDevice(const Value& recv, std::string_view method, CallArgs& a) {
  static const std::unordered_set<std::string_view> dimFirst = {
      "index_select", "gather", "scatter", "scatter_", "scatter_add", "scatter_add_", "index_add", "index_add_",
      "index_copy", "index_copy_", "index_fill", "index_fill_"};
  const bool first = method == "take_along_dim";
  if ((!first && !dimFirst.count(method)) || recv.fact.conf < model::Confidence::Medium) return;
  const Arg* ix = a.at(first ? 0 : 1, first ? "indices" : "index");
  if (!ix || ix->value.path.empty() || !ix->value.canonical.empty() || !is(ix->node, "identifier")) return;
  Value v = ix->value;
  const std::string reason = "'" + v.path + "' indexes '" + (recv.path.empty() ? std::string("a GPU tensor") : recv.path) +
                             "' through ." + std::string(method) + "(), which needs its index on the same device";
  if (v.fact.kind == Kind::CudaTensor && v.fact.conf == model::Confidence::Low) {
    promote(v, a.call, reason);
  } else if (v.fact.kind == Kind::Unknown) {
    Fact f{Kind::CudaTensor};
    f.conf = std::min(recv.fact.conf, model::Confidence::Medium);
    f.why = because(recv.fact.why, locOf(a.call), reason);
    env_[v.path] = f;
  }
}

Value Lowerer::callTensorMethod(const Value& in, std::string_view method, CallArgs& a) {
  TSNode at = a.call;
  Value recv = in;
  useOnStream(recv, at);
  indexOnSameDevice(recv, method, a);
  std::string api = "Tensor." + std::string(method);
  std::vector<Value> operands{recv};
  for (const auto& x : a.pos) operands.push_back(x.value);
  switch (lookupTensorMethod(method)) {
    case Method::Metadata: return {};
    case Method::ValueRead:
    case Method::Numpy: readValue(at, recv, SyncKind::ValueRead, api.c_str()); return {};
    case Method::ToCpu: {
      auto& e = emit(EventKind::HostSync, at, api);
      e.sync = SyncKind::BlockingCopy;
      stamp(e, recv.fact);
      if (!recv.path.empty()) e.reads.push_back(recv.path);
      return make(Kind::HostTensor);
    }
    case Method::To: {
      const Arg* d = a.at(0, "device");
      Kind k = d ? deviceKind(d) : Kind::Unknown;
      if (d && k == Kind::HostDevice) {
        if (!truthy(a.keyword("non_blocking"))) {
          auto& e = emit(EventKind::HostSync, at, api);
          e.sync = SyncKind::BlockingCopy;
          stamp(e, recv.fact);
          if (!recv.path.empty()) e.reads.push_back(recv.path);
          return make(Kind::HostTensor);
        }
        // torch allocates a pinned destination for a non_blocking device-to-host copy.
        copiedAsync(recv, at);
        auto& c = emit(EventKind::Copy, at, api);
        c.dir = CopyDir::DeviceToHost, c.nonBlocking = true;
        stamp(c, recv.fact);
        if (!recv.path.empty()) c.reads.push_back(recv.path);
        Value v = make(Kind::HostTensor);
        v.fact.pinned = v.fact.pendingCopy = true;
        v.fact.conf = recv.fact.conf, v.fact.why = recv.fact.why;  // as sure as its source
        return v;
      }
      if (k == Kind::CudaDevice) return onGpu(recv, a, "Tensor.to");  // already there, or moved
      emitWork(at, operands, api);               // dtype cast or unknown target
      return cudaFrom(recv.fact);
    }
    case Method::Cuda: return onGpu(recv, a, "Tensor.cuda");
    case Method::CopyInto: {
      const Arg* src = a.at(0, "src");
      if (src && src->value.fact.kind == Kind::HostTensor) {
        auto& c = emit(EventKind::Copy, at, api);
        c.dir = CopyDir::HostToDevice, c.value = recv.path;
        c.nonBlocking = truthy(a.keyword("non_blocking"));
        c.srcPinned = src->value.fact.pinned ? Tri::Yes : src->value.fact.pinUnknown ? Tri::Unknown : Tri::No;
        c.srcTemporary = src->value.path.empty();
        c.srcStreamTracked = src->value.fact.pinned;
        if (!src->value.path.empty()) c.reads.push_back(src->value.path);
        c.writes.push_back(recv.path);
        return recv;
      }
      // `dst.copy_(src)` takes a tensor: in a side-stream region its source is read there, on
      // the region's stream (a hook's argument, a parameter's `.grad`), whatever else is known.
      std::vector<Value> used = operands;
      if (src && src->value.fact.kind == Kind::Unknown && model::effectiveStream(fn_, scope_).isSide()) {
        Value from = src->value;
        asTensor(from, src->node, "is copied from by .copy_()");
        useOnStream(from, src->node);
        used.push_back(from);
      }
      auto& e = emitWork(at, used, api);
      if (!recv.path.empty()) e.writes.push_back(recv.path);
      return recv;
    }
    case Method::RecordStream: {
      provenCuda(recv, at, "record_stream");
      const Arg* s = a.at(0, "stream");
      auto& e = emit(EventKind::RecordStream, at, api);
      e.value = recv.path;
      e.other = s && s->value.fact.kind == Kind::Stream
                    ? s->value.fact.stream
                    : StreamRef{StreamKind::Unknown, s ? std::string(text(s->node, mc_.src)) : ""};
      // `t.record_stream(self._accel.current_stream())`: whatever device module it is called on
      // (torch.cuda, torch.npu, torch.accelerator, a wrapper kept on self), current_stream()
      // names the stream current here, inside a region the region's own stream (SL201's
      // no-op record).
      if (s && e.other.kind == StreamKind::Unknown && is(s->node, "call")) {
        TSNode fnNode = field(s->node, "function");
        if (is(fnNode, "attribute") && text(field(fnNode, "attribute"), mc_.src) == "current_stream")
          e.other = model::effectiveStream(fn_, scope_);
      }
      // A view shares its storage: recording `flat = p.grad.view(-1)` records `p.grad` too.
      if (auto v = attributeViews_.find(recv.path); v != attributeViews_.end()) {
        model::Event also = e;
        also.value = v->second;
        fn_.events.push_back(std::move(also));
      }
      return {};
    }
    case Method::Backward: {
      auto& e = emit(EventKind::Backward, at, api);
      stamp(e, recv.fact);
      if (!recv.path.empty()) e.reads.push_back(recv.path);
      // `model(x).sum().backward()`: the root is computed right here, in this statement.
      e.srcTemporary = is(field(field(at, "function"), "object"), "call");
      return {};
    }
    case Method::SyncingOp: {
      emitWork(at, operands, api);
      auto& s = emit(EventKind::HostSync, at, api);
      s.sync = SyncKind::ValueRead;
      stamp(s, recv.fact);
      return cudaFrom(recv.fact);
    }
    case Method::InPlace: {
      auto& e = emitWork(at, operands, api);
      if (!recv.path.empty()) e.writes.push_back(recv.path);
      return recv;
    }
    case Method::PinMemory: {
      // Only a CPU tensor can be pinned (a CUDA one raises): no GPU work, and the receiver was
      // on the host all along.
      if (!recv.path.empty() && recv.fact.conf != model::Confidence::High) env_[recv.path] = Fact(Kind::HostTensor);
      Value v = make(Kind::HostTensor);
      v.fact.pinned = true;
      return v;
    }
    case Method::Other:
      emitWork(at, operands, api);
      return cudaFrom(recv.fact);
  }
  return {};
}

}  // namespace sl::py
