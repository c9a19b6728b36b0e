// Inference from use: values of unknown origin (parameters, loader batches, module outputs)
// become CUDA tensors when the code uses them the way only GPU tensors are used. Each step adds
// a link to the value's chain of reasons and never raises confidence above what the use proves:
// "a tensor" (tensor-only method, torch op argument) is low; "on the GPU" (used on a side
// stream, output of a module on the GPU or of a module given CUDA inputs) is medium.
#include <algorithm>
#include <cctype>

#include "python/PyFunctionRoles.h"
#include "python/PyHostProof.h"
#include "python/PyLowering.h"

namespace sl::py {

using model::Confidence;
using model::CopyDir;
using model::EventKind;
using model::Tri;

namespace {
std::string rootOf(const std::string& path) { return path.substr(0, path.find_first_of(".[")); }
}  // namespace

// `v` is used as a tensor: in a file that touches CUDA it becomes a CUDA tensor of low
// confidence (an annotation or a tensor method says nothing about the device).
// `self.ids` that the module only ever sets to a container or a scalar (ConfigAttrs::hostValued).
bool Lowerer::hostAttribute(const std::string& path) const {
  if (!path.starts_with("self.")) return false;
  std::string_view attr = std::string_view(path).substr(5);
  return attr.find_first_of(".[") == std::string_view::npos && mc_.config.hostValued(mc_.src, attr);
}

void Lowerer::asTensor(Value& v, TSNode at, const std::string& why) {
  if (v.fact.kind != Kind::Unknown || v.path.empty() || !v.canonical.empty() || !mc_.touchesCuda) return;
  if (hostAttribute(v.path)) return;
  if (v.path == "self" || !mc_.imports.canonical(rootOf(v.path)).empty())
    return;  // `np.x`, `math.pi`: names of other libraries
  v.fact = Fact{};
  v.fact.kind = Kind::CudaTensor;
  if (!cpuFunction_ && !cpuBranch_ && namedAsLoss(v.path, at)) {
    // A loss is computed from the model's outputs, on the device the model runs on: in code that
    // uses CUDA, the GPU. Host-side losses (numpy, `torch.tensor(...)` without a device) have a
    // known kind and never get here.
    v.fact.conf = Confidence::Medium;
    v.fact.why = because(nullptr, locOf(at), "'" + v.path + "' " + why + ", and it is " +
                                                 (lossElements_.count(rootOf(v.path)) ? "an element of a container of losses"
                                                                                      : "named as a loss") +
                                                 ": a loss is computed where the model runs, on the GPU in code that uses CUDA");
  } else {
    v.fact.conf = Confidence::Low;
    v.fact.why = because(nullptr, locOf(at), "'" + v.path + "' " + why + "; its device is not known");
  }
  env_[v.path] = v.fact;
}

// `v` (unknown kind) computes with a tensor method inside a side-stream region: the code put
// it there to run on that stream's GPU queue, so it is a CUDA tensor, at medium confidence (a
// numpy array has the same methods, but is not what a CUDA stream region is for).
void Lowerer::queuedInRegion(Value& v, TSNode at, std::string_view method) {
  queuedInRegion(v, at, [&](const model::StreamRef& s) {
    return "'" + v.path + "' calls ." + std::string(method) + "() inside a region on " + s.describe() +
           ": the work queued there runs on the GPU";
  });
}

void Lowerer::queuedInRegion(Value& v, TSNode at, const std::function<std::string(const model::StreamRef&)>& why) {
  if (v.fact.kind != Kind::Unknown || v.path.empty() || v.path == "self" || !v.canonical.empty()) return;
  if (!mc_.imports.canonical(rootOf(v.path)).empty() || cpuFunction_ || cpuBranch_ || hostAttribute(v.path)) return;
  const model::StreamRef s = model::effectiveStream(fn_, scope_);
  if (!s.isSide() || model::enclosingSideRegion(fn_, scope_) < 0) return;
  v.fact = Fact{};
  v.fact.kind = Kind::CudaTensor;
  v.fact.conf = Confidence::Medium;
  v.fact.why = because(nullptr, locOf(at), why(s));
  env_[v.path] = v.fact;
}

void Lowerer::provenCuda(const Value& v, TSNode at, std::string_view method) {
  if (v.path.empty() || v.path == "self" || !v.canonical.empty()) return;
  if (v.fact.kind != Kind::Unknown && !(v.fact.kind == Kind::CudaTensor && v.fact.conf == Confidence::Low)) return;
  Fact f = v.fact.kind == Kind::CudaTensor ? v.fact : Fact{Kind::CudaTensor};
  f.conf = Confidence::Medium;
  f.why = because(f.why, locOf(at), "'" + v.path + "' calls ." + std::string(method) +
                                        "(), which only a CUDA tensor has");
  env_[v.path] = f;
  stampProducers(v.path, f);
}

// What made `path` here (the allocation, the copy, the op that wrote it) ran on the GPU too,
// now that a later use proved it a GPU tensor: their low guesses take the proof.
void Lowerer::stampProducers(const std::string& path, const Fact& f) {
  for (auto& e : fn_.events) {
    const bool produced = e.value == path || std::find(e.writes.begin(), e.writes.end(), path) != e.writes.end();
    if (produced && e.confidence == Confidence::Low) stamp(e, f);
  }
}

bool Lowerer::namedAsLoss(const std::string& path, TSNode at) const {
  const std::string root = rootOf(path);
  if (!(root == path && lossElements_.count(root)) && !looksLikeLossName(path)) return false;
  // What a logging call or a metrics store reads is judged by other evidence: the loss's name
  // alone would make per-step logging, mostly deliberate, a GPU read (bench/precision run S).
  if (mc_.logging) {
    const uint32_t line = ts_node_start_point(at).row + 1;
    for (const auto& [first, last] : *mc_.logging)
      if (first <= line && line <= last) return false;
  }
  return true;
}

void Lowerer::usedAsTensor(Value& v, TSNode at, const std::string& why) {
  if (!forwardInput(v.path)) return asTensor(v, at, why);
  if (v.fact.kind != Kind::Unknown || !v.canonical.empty() || !mc_.touchesCuda) return;
  // Like a tensor-annotated input of forward (moduleInputs): the use says "a tensor", the
  // function says where it lives.
  v.fact = Fact{};
  v.fact.kind = Kind::CudaTensor;
  v.fact.conf = Confidence::Medium;
  const std::string root = rootOf(v.path);
  std::string from = fn_.hotViaCaller ? "a parameter of `" + fn_.name.substr(fn_.name.rfind('.') + 1) + "()`, " + fn_.hot
                                      : "an input of " + className_ + ".forward";
  if (root != v.path) from = "'" + root + "', " + from + ", which the function updates in place";
  v.fact.why = because(nullptr, locOf(at), "'" + v.path + "' " + why + ", and it is read from " + from +
                                               ": the module's inputs are on its device");
  env_[v.path] = v.fact;
}

bool Lowerer::forwardInput(const std::string& path) const {
  if (!moduleForward_ || cpuFunction_ || path.empty()) return false;
  std::string root = rootOf(path);
  if (root == "self" || bound_.count(root) || nonTensorParams_.count(root)) return false;  // rebound, `int`
  if (root.find("cpu") != std::string::npos || root.find("host") != std::string::npos) return false;
  if (std::find(fn_.params.begin(), fn_.params.end(), root) == fn_.params.end()) return false;
  // An entry of an input container (`cache["end"]`) only when forward writes into that
  // container: state the module keeps with its tensors (a KV cache), not a bag of settings.
  return root == path || updatedInputs_.count(root) > 0;
}

// A low-confidence tensor used the way only GPU tensors are: medium from here on, with `reason`
// added to its chain (in the value and in the name it is stored under).
void Lowerer::promote(Value& v, TSNode at, const std::string& reason) {
  v.fact.conf = Confidence::Medium;
  v.fact.why = because(v.fact.why, locOf(at), reason);
  if (v.path.empty()) return;
  Fact& f = env_[v.path];
  if (f.kind == Kind::CudaTensor) f.conf = v.fact.conf, f.why = v.fact.why;
  else if (f.kind == Kind::Unknown) f = v.fact;
  stampProducers(v.path, v.fact);
}

// A tensor used on a side stream lives on the GPU: CUDA streams order GPU work only.
void Lowerer::useOnStream(Value& v, TSNode at) {
  if (v.fact.kind != Kind::CudaTensor || v.fact.conf != Confidence::Low) return;
  model::StreamRef s = model::effectiveStream(fn_, scope_);
  if (!s.isSide()) return;
  promote(v, at, (v.path.empty() ? std::string("the value") : "'" + v.path + "'") + " is used on " + s.describe() +
                     ", so it is on the GPU");
}

// `t.to("cpu", non_blocking=True)`, `host.copy_(t, non_blocking=True)`: asking for an
// asynchronous copy to the host only makes sense for a GPU tensor.
void Lowerer::copiedAsync(Value& v, TSNode at) {
  if (v.fact.kind != Kind::CudaTensor || v.fact.conf != Confidence::Low) return;
  promote(v, at, "it is copied to the host with non_blocking=True, which only GPU tensors do");
}

void Lowerer::useOnStream(std::vector<Value>& vs, TSNode at) {
  for (auto& v : vs) useOnStream(v, at);
}

// `model(x)`, `self.layer(x)`, `criterion(out, y)`: the output of a module on the GPU, or of a
// callable given a CUDA tensor, is on the GPU (modules keep their outputs on their inputs'
// device). Never for builtins, other libraries' functions or the project's own functions
// (those have summaries).
Value Lowerer::moduleCall(const Value& callee, std::string_view calleeText, const CallArgs& a) {
  const size_t before = fn_.events.size();
  Value out = moduleOutput(callee, calleeText, a);
  readWeights(callee, a, before);
  return out;
}

// A call of a module kept in object state (`self.block(x)`, `layer(x)` for `layer` in
// `self.layers`) runs with that module's parameters: a read of the state it comes from, on the
// stream current at the call, so that a method uploading those parameters on a side stream is
// judged against it (rules/ClassProtocol.h). Assumed work: the call may queue nothing (a
// timer around it proves nothing), and only its object state is named.
void Lowerer::readWeights(const Value& callee, const CallArgs& a, size_t before) {
  if (callee.path.empty() || callee.path == "self" || cpuFunction_ || !mc_.touchesCuda) return;
  if (!callee.path.starts_with("self.") && !fn_.stateOf.count(rootOf(callee.path))) return;
  if (a.pos.empty() && a.kw.empty()) return;  // `self.optimizers()`: a getter; a forward takes inputs
  const Loc at = locOf(a.call);
  for (size_t k = before; k < fn_.events.size(); ++k) {
    auto& e = fn_.events[k];
    if (e.kind != EventKind::Work || e.loc != at) continue;
    if (std::find(e.reads.begin(), e.reads.end(), callee.path) == e.reads.end()) e.reads.push_back(callee.path);
    return;
  }
  // The call already has a model of its own (`self.log(...)`: Lightning's upload).
  if (!fn_.events.empty() && fn_.events.back().loc == at) return;
  auto& w = emitWork(a.call, {}, "module-call");
  w.reads.push_back(callee.path);
  w.assumed = true;
  w.confidence = Confidence::Low;
}

// What a module call returns (moduleCall).
Value Lowerer::moduleOutput(const Value& callee, std::string_view calleeText, const CallArgs& given) {
  const size_t before = fn_.events.size();
  // `model(x)`, `self.block(x)` inside a side-stream region (a CUDA graph's warm-up, a tower on
  // its own stream): the module's kernels run there, so what it is handed are GPU tensors, as a
  // tensor method's receiver there is.
  // (Not a kernel launch `kernel[grid](x, n)`: a local subscripted; it takes scalars too.)
  const bool launch = !callee.path.starts_with("self.") && callee.path.find('[') != std::string::npos;
  const bool module = callee.path != "self" && !callee.path.empty() && !launch &&
                      model::effectiveStream(fn_, scope_).isSide() &&
                      ((moduleForward_ && callee.path.starts_with("self.")) || looksLikeModuleName(callee.path));
  CallArgs promoted;
  if (module) promoted = given;  // the arguments with what the region says of them
  const CallArgs& a = module ? promoted : given;
  if (module)
    for (auto& x : promoted.pos)
      if (is(x.node, "identifier") || is(x.node, "attribute"))
        queuedInRegion(x.value, x.node, [&](const model::StreamRef& s) {
          return "'" + x.value.path + "' is handed to '" + std::string(calleeText) + "' inside a region on " +
                 s.describe() + ": the module's work queued there runs on the GPU";
        });
  callWork(a.call, a.pos, std::string(calleeText));
  const bool worked = fn_.events.size() > before;  // on a side stream, with its inputs
  if (callee.fact.kind == Kind::CudaModule) {
    Value v = cudaFrom(callee.fact);
    v.fact.conf = std::min(v.fact.conf, Confidence::Medium);
    v.fact.why = because(callee.fact.why, locOf(a.call), "output of '" + std::string(calleeText) + "', a module on the GPU");
    if (!worked) stamp(emitWork(a.call, {}, std::string(calleeText)), v.fact);  // its kernels (a timer's work)
    return v;
  }
  const Fact* best = nullptr;
  const Arg* from = nullptr;
  for (const auto& x : a.pos)
    if (x.value.fact.kind == Kind::CudaTensor && (!best || x.value.fact.conf > best->conf))
      best = &x.value.fact, from = &x;
  if (!best) {
    // `self.model(x)`, `encoder.forward(x)` in code that uses CUDA: a model's forward launches
    // kernels (what a host timer around it must wait for), although its output's device is
    // not known.
    if (!worked && mc_.touchesCuda && !cpuFunction_ && !cpuBranch_ && !callee.path.empty() && callee.path != "self" &&
        looksLikeModuleName(callee.path)) {
      auto& w = emitWork(a.call, {}, std::string(calleeText));
      w.confidence = Confidence::Medium;
      w.evidence = {{locOf(a.call), "'" + callee.path + "' is called like a model in code that uses CUDA"}};
    }
    if (Value d = deviceResult(a, calleeText); d.fact.kind != Kind::Unknown) return d;
    // `out = op(x)` inside `with torch.cuda.stream(s)`: whatever it makes is made on s (so a
    // backward from it has its forward in the region).
    model::StreamRef s = model::effectiveStream(fn_, scope_);
    if (!s.isSide()) return {};
    // A submodule called in a module's forward runs on that module's device, and a forward that
    // queues its work on a CUDA stream runs on the GPU (as a tensor method there: queuedInRegion).
    const bool submodule = moduleForward_ && callee.path.starts_with("self.") && callee.path.find_first_of("[(", 5) == std::string::npos;
    Value v = cudaNew(a.call,
                      "output of '" + std::string(calleeText) + "' called on " + s.describe() +
                          (submodule ? ", a submodule of " + className_ + ", whose forward runs its work on a CUDA stream" : ""),
                      submodule ? Confidence::Medium : Confidence::Low);
    stamp(emitWork(a.call, {}, std::string(calleeText)), v.fact);
    return v;
  }
  if (looksLikePredicateName(calleeText)) {  // `self.offload_checker(t)`: a flag about t
    if (!worked) stamp(emitWork(a.call, {}, std::string(calleeText)), *best);
    return {};
  }
  Value v = cudaFrom(*best);
  v.fact.conf = std::min(best->conf, Confidence::Medium);
  v.fact.why = because(best->why, locOf(a.call),
                       "output of '" + std::string(calleeText) + "' called with the CUDA tensor '" +
                           std::string(text(from->node, mc_.src)) + "'");
  if (!worked) stamp(emitWork(a.call, {}, std::string(calleeText)), v.fact);
  return v;
}

// `.cuda()` / `.to(device)` on a value of unknown kind: a module moves to the GPU, a host tensor
// is copied there. The copy's blocking wait is certain only for a loader batch (bound by the
// loop); elsewhere the value may already be on the GPU (then `.to` does nothing).
Value Lowerer::toDevice(Value recv, std::string_view method, CallArgs& a) {
  const Arg* d = method == "to" ? a.at(0, "device") : nullptr;
  if (d && deviceKind(d) == Kind::HostDevice && truthy(a.keyword("non_blocking"))) {
    asTensor(recv, a.call, "is copied to the host");  // then callTensorMethod infers the GPU
    return recv.fact.kind == Kind::CudaTensor ? callTensorMethod(recv, method, a) : Value{};
  }
  if (method == "to" && (!d || deviceKind(d) != Kind::CudaDevice)) return {};
  // `Net(...).cuda()` constructs a module; otherwise the receiver's name tells.
  TSNode obj = field(field(a.call, "function"), "object");
  bool module = looksLikeModuleName(recv.path);
  if (is(obj, "call")) {
    std::string_view ctor = text(field(obj, "function"), mc_.src);
    ctor = ctor.substr(ctor.rfind('.') == std::string_view::npos ? 0 : ctor.rfind('.') + 1);
    module = !ctor.empty() && std::isupper(static_cast<unsigned char>(ctor[0]));
  }
  if (module) {
    Value v = cudaNew(a.call, "'" + (recv.path.empty() ? std::string("the module") : recv.path) + "' is moved to the GPU by ." +
                                  std::string(method) + "(" + (d ? std::string(text(d->node, mc_.src)) : "") + ")",
                      deviceConfidence(d));
    v.fact.kind = Kind::CudaModule;
    if (!recv.path.empty()) env_[recv.path] = v.fact;  // Module.to/.cuda move in place
    // `module.cuda(non_blocking=True)`: its parameters were made by its constructor in pageable
    // host memory, so each copy is staged on this thread anyway (SL304's shape). Pinned
    // parameters (offloading code pins them) are pinned one by one, not through the module.
    if (truthy(a.keyword("non_blocking"))) {
      auto& c = emit(EventKind::Copy, a.call, method == "to" ? "Module.to" : "Module.cuda");
      c.dir = CopyDir::HostToDevice;
      c.nonBlocking = true;
      c.srcPinned = Tri::No;
      stamp(c, v.fact);
    }
    return v;
  }
  Value out = copyToDevice(recv, a, method == "to" ? "Tensor.to" : "Tensor.cuda");
  if (loopBound(recv.path)) return out;
  // Not a loader batch: the copy (and its wait) is only a guess, unless the code moved it off
  // the current stream as an asynchronous one: a side-stream region exists to overlap a real
  // host-to-device copy (a tensor already on the GPU would need neither).
  const model::StreamRef s = model::effectiveStream(fn_, scope_);
  const bool overlapped = truthy(a.keyword("non_blocking")) && s.isSide() && model::enclosingSideRegion(fn_, scope_) >= 0;
  for (auto it = fn_.events.rbegin(); it != fn_.events.rend() && it->loc == locOf(a.call); ++it) {
    if (!overlapped) {
      it->confidence = Confidence::Low;
      continue;
    }
    it->confidence = std::min(it->confidence, Confidence::Medium);
    it->evidence.push_back({locOf(a.call), "copied with non_blocking=True inside a region on " + s.describe() +
                                               ": a host-to-device copy moved off the current stream"});
  }
  if (overlapped && isCuda(out)) {
    out.fact.conf = std::min(out.fact.conf, Confidence::Medium);
    out.fact.why = because(out.fact.why, locOf(a.call), "copied to the GPU asynchronously on " + s.describe());
  }
  return out;
}

// `device`, `self._device`, `batch.device` of unknown value: in a file that uses CUDA the
// device the code moves its tensors to is the GPU.
void Lowerer::deviceByName(Value& v, TSNode at) const {
  if (v.fact.kind != Kind::Unknown || v.path.empty() || !v.canonical.empty() || !mc_.touchesCuda) return;
  if (!looksLikeDeviceName(v.path)) return;
  v.fact.kind = Kind::CudaDevice;
  v.fact.conf = Confidence::Medium;
  v.fact.why = because(nullptr, locOf(at), "'" + v.path + "' is taken to be a GPU: the file uses CUDA");
}

// A call inside a side-stream region that hands CUDA tensors to a module or to the project's
// own function runs their GPU work on that stream: it reads them there.
void Lowerer::callWork(TSNode call, const std::vector<Arg>& args, const std::string& callee) {
  if (!model::effectiveStream(fn_, scope_).isSide()) return;
  std::vector<Value> vs;
  for (const auto& x : args)
    for (Value& t : handedTensors(x.value)) vs.push_back(std::move(t));
  if (!strongestCuda(vs)) return;
  useOnStream(vs, call);
  emitWork(call, vs, callee);
}

// A Call event's `value` names a CUDA tensor or device (medium confidence or more) that the
// call hands the callee ("<argument>" for a temporary), "" when none: a helper in another file
// called every step on GPU data (or told to put its tensors on the GPU: `f(kwargs, q.device)`)
// runs every step too (driver/HotHelpers.h), and evidence in the caller is what makes the
// prefilter keep the call.
void Lowerer::emitCall(TSNode call, const std::string& callee, const CallArgs& a) {
  std::string cuda;
  auto consider = [&](const Value& v) {
    bool gpu = isCuda(v) || v.fact.kind == Kind::CudaDevice;
    if (cuda.empty() && gpu && v.fact.conf >= Confidence::Medium) cuda = v.path.empty() ? "<argument>" : v.path;
  };
  uint32_t positions = 0;
  for (size_t i = 0; i < a.pos.size() && i < 32 && !a.splat; ++i) {
    if (isCuda(a.pos[i].value) && a.pos[i].value.fact.conf >= Confidence::Medium) positions |= uint32_t(1) << i;
  }
  for (const auto& x : a.pos) consider(x.value);
  for (const auto& [k, x] : a.kw) consider(x.value);
  auto& e = emit(EventKind::Call, call, callee);
  e.callee = callee;
  e.value = std::move(cuda);
  e.cudaArgs = positions;
  // The helper uses what it is handed, on the stream current at the call: a read here (a value
  // a side stream wrote must be joined before it is passed on).
  auto reads = [&](const Value& v) {
    if (isCuda(v) && v.fact.conf >= Confidence::Medium && !v.path.empty() &&
        std::find(e.reads.begin(), e.reads.end(), v.path) == e.reads.end())
      e.reads.push_back(v.path);
  };
  for (const auto& x : a.pos)
    for (const Value& t : handedTensors(x.value)) reads(t);
  for (const auto& [k, x] : a.kw)
    for (const Value& t : handedTensors(x.value)) reads(t);
  // What is handed where, for the callee's summary to say what the call reads and writes
  // (model::applyParameterEffects). Past a `*splat` the positions are unknown.
  if (!a.splat)
    for (const auto& x : a.pos) e.args.push_back(pointedTo(x.value).path);
  for (const auto& [k, x] : a.kw) e.kwargs.emplace_back(std::string(k), pointedTo(x.value).path);
}

std::vector<Value> Lowerer::handedTensors(const Value& v) const {
  if (auto it = v.path.empty() ? pointerTables_.end() : pointerTables_.find(v.path); it != pointerTables_.end()) {
    std::vector<Value> out;
    for (const Value& address : it->second) out.push_back(pointedTo(address));
    return out;
  }
  return {pointedTo(v)};
}

void Lowerer::storeAddress(const std::string& container, const Value& address) {
  if (container.empty() || address.fact.kind != Kind::DevicePointer || address.fact.pointee.empty()) return;
  Value stored = address;
  // `staged[i].data_ptr()`: an address into a row of a CUDA tensor is one into its storage, so
  // the table reads `staged` (who produced it is known); a row of a list stays the element.
  std::string& pointee = stored.fact.pointee;
  while (pointee.ends_with("[]") && lookup(pointee.substr(0, pointee.size() - 2)).kind == Kind::CudaTensor)
    pointee.resize(pointee.size() - 2);
  auto& table = pointerTables_[container];
  for (const Value& a : table)
    if (a.fact.pointee == pointee) return;
  if (table.size() < 16) table.push_back(std::move(stored));  // a bound: tables are filled in loops
}

// For an address into a tensor (`t.data_ptr() + off`), the tensor it points into, as sure as the
// address; any other value as it is.
Value Lowerer::pointedTo(const Value& v) const {
  if (v.fact.kind != Kind::DevicePointer || v.fact.pointee.empty()) return v;
  Fact f = lookup(v.fact.pointee);
  if (f.kind != Kind::CudaTensor) {
    f = Fact{Kind::CudaTensor};
    f.conf = v.fact.conf;
    f.why = v.fact.why;
  }
  return Value{f, v.fact.pointee, "", false};
}

void Lowerer::helperCall(const std::string& callee, const CallArgs& a) {
  withHandedStream(a, [&] {
    callWork(a.call, a.pos, callee);
    emitCall(a.call, callee, a);
  });
}

// A call handed a side stream (or its raw handle, `s.cuda_stream`) runs `lower`'s work in a
// one-call region on it (Scope::handedStream): the callee queues its work there.
void Lowerer::withHandedStream(const CallArgs& a, const std::function<void()>& lower) {
  const Arg* handed = nullptr;
  model::StreamRef named;
  std::vector<model::StreamRef> more;  // further side streams handed to the same call
  auto consider = [&](const Arg& x) {
    // A stream made right in the arguments (`make_ctx(a, stream=torch.cuda.Stream())`) is handed
    // over to be kept: nothing was queued on it to order, and the callee decides when it runs.
    model::StreamRef s;
    if (x.value.fact.kind == Kind::Stream && x.value.fact.stream.isSide() && !x.value.path.empty())
      s = x.value.fact.stream;
    else if (x.value.fact.kind == Kind::Unknown && !x.value.path.empty() && mc_.streamPaths.count(x.value.path))
      s = model::StreamRef{model::StreamKind::Unknown, x.value.path};
    else
      return;
    if (!handed) handed = &x, named = s;
    else more.push_back(s);
  };
  for (const auto& x : a.pos) consider(x);
  for (const auto& [k, x] : a.kw) consider(x);
  int saved = -2;
  if (handed) {
    model::StreamRef s = named;
    if (s.name.empty()) s.name = std::string(text(handed->node, mc_.src));
    if (model::effectiveStream(fn_, scope_) != s) {
      saved = pushScope(model::ScopeKind::StreamRegion, a.call, std::move(s));
      fn_.scopes[size_t(scope_)].handedStream = true;
    }
  }
  lower();
  for (auto& s : more) fn_.alsoHanded.emplace_back(locOf(a.call), std::move(s));
  if (saved != -2) popScope(saved);
}

// `cand_beams.add(offsets)`, `ids.eq(eos)` with the argument on the GPU (medium or more): torch
// combines the tensors of one device only (a CPU operand may be a 0-dim scalar, and then the
// result is on the GPU all the same), so a receiver of unknown or guessed device is a GPU
// tensor as sure as the argument (fairseq 1df3e50a).
void Lowerer::combinedWithGpu(Value& recv, std::string_view method, const CallArgs& a) {
  if (!combinesOperands(method)) return;
  const bool unknown = recv.fact.kind == Kind::Unknown && !recv.path.empty() && recv.canonical.empty() && mc_.touchesCuda;
  const bool guessed = recv.fact.kind == Kind::CudaTensor && recv.fact.conf == Confidence::Low;
  if ((!unknown && !guessed) || recv.path == "self" || cpuFunction_) return;
  for (const auto& x : a.pos) {
    if (!isCuda(x.value) || x.value.fact.conf < Confidence::Medium) continue;
    const std::string reason = "'" + (recv.path.empty() ? std::string("the receiver") : recv.path) +
                               "' is combined with the GPU tensor '" + std::string(text(x.node, mc_.src)) + "' by ." +
                               std::string(method) + "(): torch combines tensors of one device";
    if (guessed) return promote(recv, a.call, reason);
    recv.fact = x.value.fact;
    recv.fact.conf = Confidence::Medium;
    recv.fact.why = because(x.value.fact.why, locOf(a.call), reason);
    recv.fact.local = false;
    env_[recv.path] = recv.fact;
    return;
  }
}

// `t.cuda()` / `t.to(cuda_device)` on a tensor that may or may not be on the GPU: afterwards it
// is, as surely as the device names the GPU (the copy, if any, is not modelled: it may be a no-op).
Value Lowerer::onGpu(const Value& recv, CallArgs& a, const char* api) {
  if (recv.fact.conf == Confidence::High) return recv;
  const Arg* d = std::string_view(api) == "Tensor.to" ? a.at(0, "device") : nullptr;
  Value v = cudaNew(a.call, std::string("moved to the GPU by ") + api + "(" + (d ? std::string(text(d->node, mc_.src)) : "") + ")",
                    deviceConfidence(d));
  v.path = recv.path;
  return v;
}

// `encode(prompt, device=device)`, `retrieve_timesteps(sched, n, device)`: what a call given a
// GPU device returns lives on that device.
Value Lowerer::deviceResult(const CallArgs& a, std::string_view callee) {
  const Arg* dev = nullptr;
  for (const auto& x : a.pos)
    if (x.value.fact.kind == Kind::CudaDevice) dev = &x;
  for (const auto& [k, x] : a.kw)
    if (x.value.fact.kind == Kind::CudaDevice) dev = &x;
  if (!dev) return {};
  // Low until its name says it is a tensor (`latents = prepare(..., device)` vs
  // `err = advise(t, device=device)`): a function given a device may return anything.
  Value v = cudaNew(a.call, "returned by '" + std::string(callee) + "' called with the GPU device '" +
                                std::string(text(dev->node, mc_.src)) + "'",
                    Confidence::Low);
  if (dev->value.fact.why) v.fact.why = because(dev->value.fact.why, v.fact.why->ev.loc, v.fact.why->ev.text);
  v.fact.mixed = true;  // `timesteps, num_steps = retrieve_timesteps(..., device)`
  return v;
}

// The innermost name of a subscript/attribute chain (`cache["k"][:, i]` -> `cache`), or null.
static TSNode chainRoot(TSNode n) {
  while (is(n, "subscript") || is(n, "attribute")) n = field(n, is(n, "subscript") ? "value" : "object");
  return is(n, "identifier") ? n : TSNode{};
}

// A module's forward runs on the module's device: in code that uses CUDA, its tensor inputs
// are on the GPU.
void Lowerer::moduleInputs(TSNode at) {
  moduleForward_ = true;
  // Inputs written through in the body (`kv_cache["k"][:, a:b] = k`, `state["n"] += 1`):
  // statements only, never into expressions (cheap: forward bodies are long).
  std::vector<TSNode> todo{field(at, "body")};
  while (!todo.empty()) {
    TSNode n = todo.back();
    todo.pop_back();
    if (ts_node_is_null(n)) continue;
    for (TSNode c : NamedChildren(n)) {
      if (is(c, "assignment") || is(c, "augmented_assignment")) {
        TSNode left = field(c, "left");
        if (is(left, "subscript")) {
          TSNode r = chainRoot(left);
          if (!ts_node_is_null(r)) updatedInputs_.insert(std::string(text(r, mc_.src)));
        }
      } else if (is(c, "block") || is(c, "expression_statement") || is(c, "if_statement") ||
                 is(c, "elif_clause") || is(c, "else_clause") || is(c, "for_statement") ||
                 is(c, "while_statement") || is(c, "with_statement") || is(c, "try_statement") ||
                 is(c, "except_clause") || is(c, "finally_clause")) {
        todo.push_back(c);
      }
    }
  }
  for (const auto& p : fn_.params) {
    auto it = env_.find(p);
    if (it == env_.end() || it->second.kind != Kind::CudaTensor || it->second.conf != Confidence::Low) continue;
    it->second.conf = Confidence::Medium;
    it->second.why = because(it->second.why, locOf(at),
                             "it is an input of " + className_ + ".forward, which runs on the module's device");
  }
}

void Lowerer::autogradInputs(TSNode at) {
  if (!mc_.touchesCuda) return;
  for (size_t i = 1; i < fn_.params.size(); ++i) {
    const std::string& p = fn_.params[i];
    if (env_.count(p) || nonTensorParams_.count(p)) continue;
    Fact f{Kind::CudaTensor};
    f.conf = Confidence::Low;
    f.why = because(nullptr, locOf(at), "'" + p + "' is an input of " + fn_.name + ", which autograd calls with tensors");
    env_[p] = f;
  }
}

// A tensor hook's input (the gradient of `register_hook`, the parameter of
// `register_post_accumulate_grad_hook`) is the hooked tensor's: produced by autograd on the
// stream current at backward, on the GPU in a file that uses CUDA. Medium confidence, like a
// module's inputs: nothing in the file names its device.
void Lowerer::hookInputs(TSNode at) {
  const int k = hookTensorParam(fn_.hot);
  if (k < 0 || !mc_.touchesCuda) return;
  const size_t i = size_t(k) + (!fn_.params.empty() && fn_.params[0] == "self" ? 1 : 0);
  if (i >= fn_.params.size() || nonTensorParams_.count(fn_.params[i])) return;
  Fact f{Kind::CudaTensor};
  f.conf = Confidence::Medium;
  f.why = because(nullptr, locOf(at), "'" + fn_.params[i] + "' is the tensor autograd hands " + fn_.hot);
  env_[fn_.params[i]] = f;
}

void Lowerer::callerInput(size_t index, const std::string& why, TSNode at) {
  if (index >= fn_.params.size()) return;
  auto it = env_.find(fn_.params[index]);
  if (it == env_.end() || it->second.kind != Kind::CudaTensor || it->second.conf != Confidence::Low) return;
  it->second.conf = Confidence::Medium;
  it->second.why = because(it->second.why, locOf(at), why);
}

bool Lowerer::loopBound(const std::string& path) const {
  return !path.empty() && loopBound_.count(rootOf(path)) > 0;
}

// `c[m]` with `m` on the GPU: torch indexes a tensor only with indices on the CPU or on the
// tensor's own device, so a local of unknown device indexed by a GPU tensor is on the GPU
// (`for c, m in zip(ids, mask.bool()): c[m].tolist()`). As sure as the index, at most medium;
// only for a plain local name (an attribute or container entry may be a dict keyed by it).
void Lowerer::indexedOnGpu(Value& base, const Value& idx, TSNode at) {
  if (!isCuda(idx) || idx.fact.conf < Confidence::Medium || base.path.empty() ||
      base.path.find_first_of(".[") != std::string::npos || base.path == "self")
    return;
  if (base.fact.kind == Kind::CudaTensor && base.fact.conf >= Confidence::Medium) return;
  if (base.fact.kind != Kind::Unknown && base.fact.kind != Kind::CudaTensor) return;
  if (!mc_.imports.canonical(base.path).empty()) return;  // a module or library name
  const std::string reason = "'" + base.path + "' is indexed by the GPU tensor '" + (idx.path.empty() ? "..." : idx.path) +
                             "', and torch indexes a tensor only with indices on the CPU or its own device";
  if (base.fact.kind == Kind::Unknown) {
    base.fact = cudaFrom(idx.fact).fact;
    base.fact.conf = Confidence::Medium;
    base.fact.why = because(idx.fact.why, locOf(at), reason);
    env_[base.path] = base.fact;
    return;
  }
  promote(base, at, reason);
}

// Only parameters whose annotation made them GPU guesses are looked at: the proof walks the
// whole body, and an unannotated parameter is no finding's evidence until its use says so.
void Lowerer::hostByUse(TSNode body) {
  bool guessed = false;
  for (const auto& p : fn_.params)
    if (auto it = env_.find(p); it != env_.end() && it->second.kind == Kind::CudaTensor) guessed = true;
  if (!guessed) return;
  for (const auto& name : hostProvenNames(body, mc_.src, mc_.imports)) {
    if (std::find(fn_.params.begin(), fn_.params.end(), name) == fn_.params.end()) continue;
    if (auto it = env_.find(name); it != env_.end() && it->second.kind == Kind::CudaTensor)
      env_[name] = Fact{Kind::HostTensor};
  }
}

}  // namespace sl::py
