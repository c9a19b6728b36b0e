// Turning one recognized call into events: API table rows (CUDA runtime/driver, LibTorch
// streams/events/tensor syncs), `<<<>>>` launches, and generic LibTorch tensor operations.
#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>

#include "cxx/LowerState.h"

namespace sl::cxx {

using namespace clang;
using model::CopyDir;
using model::EventKind;
using model::StreamKind;
using model::StreamRef;
using model::SyncKind;

namespace {

// The enumerator a cudaMemcpyKind argument names, or "".
std::string enumeratorName(const Expr* e) {
  if (!e) return {};
  if (const auto* d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
    if (isa<EnumConstantDecl>(d->getDecl())) return d->getDecl()->getNameAsString();
  return {};
}

// `true` written as an argument: LibTorch's non_blocking flags are plain bools.
bool hasTrueLiteral(const CallExpr* ce, unsigned from) {
  for (unsigned i = from; i < ce->getNumArgs(); ++i)
    if (const auto* b = dyn_cast<CXXBoolLiteralExpr>(ce->getArg(i)->IgnoreParenImpCasts()); b && b->getValue())
      return true;
  return false;
}

bool mentionsAny(const std::string& s, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (s.find(w) != std::string::npos) return true;
  return false;
}

}  // namespace

// `kernel<<<grid, block, shmem, stream>>>(args)`: Work on the launch's stream. Pointer
// arguments are the values it touches: a pointer-to-const parameter is read, any other
// pointer may be read and written (the kernel body is not analysed).
void FunctionLowering::launch(const CUDAKernelCallExpr* k) {
  for (const Expr* a : k->arguments()) expr(a);
  StreamRef s{StreamKind::Unknown, {}};
  if (const auto* cfg = dyn_cast_or_null<CallExpr>(k->getConfig())) {
    for (const Expr* a : cfg->arguments()) expr(a);
    s = cfg->getNumArgs() >= 4 ? streamOf(cfg->getArg(3)) : omittedStream();
  }
  legacyOrdering(s, k->getBeginLoc(), false);
  model::Event& e = emit(EventKind::Work, k->getBeginLoc());
  e.stream = s;
  e.streamExplicit = true;
  const FunctionDecl* kd = k->getDirectCallee();
  std::string kname = kd ? kd->getNameAsString() : text(k->getCallee());
  e.api = kname + "<<<>>>";
  for (unsigned i = 0; i < k->getNumArgs(); ++i) {
    const Expr* a = k->getArg(i);
    std::string n = valueName(a);
    if (n.empty()) continue;
    QualType pt = kd && i < kd->getNumParams() ? kd->getParamDecl(i)->getType() : a->getType();
    bool dependent = pt->isDependentType();
    if (!dependent && !pt->isPointerType()) continue;
    e.reads.push_back(n);
    if (dependent || !pt->getPointeeType().isConstQualified()) e.writes.push_back(n);
  }
  legacyOrdering(s, k->getBeginLoc(), true);
}

void FunctionLowering::apiCall(const ApiEntry& api, const std::string& name, const CallExpr* ce,
                               const Expr* object, const std::string& target) {
  SourceLocation at = isa<CXXMemberCallExpr>(ce) ? ce->getExprLoc() : ce->getBeginLoc();
  const Expr* streamArg = arg(ce, api.stream);
  std::string value = api.value >= 0 ? valueName(arg(ce, api.value)) : valueName(object);
  auto withSync = [&](const std::vector<std::string>& reads) {
    if (api.sync == SyncKind::None) return;
    model::Event& s = emit(EventKind::HostSync, at);
    s.sync = api.sync;
    s.api = name;
    s.reads = reads;
    // An allocation's sync names what it allocates (SL302 tells set-up loops by it); not a
    // write: the memory holds nothing a stream must wait for.
    if (api.sync == SyncKind::Allocation) s.value = value;
  };
  auto explicitStream = [&](model::Event& e) {
    if (api.stream < 0) return;
    e.stream = streamArg ? streamOf(streamArg) : omittedStream();
    e.streamExplicit = true;
  };
  switch (api.op) {
    case ApiOp::StreamCreate:
    case ApiOp::EventCreate: {
      model::Event& e = emit(api.op == ApiOp::StreamCreate ? EventKind::StreamCreate : EventKind::EventCreate, at);
      e.value = value;
      e.api = name;
      // The created stream is a side stream known by the out-parameter's name.
      if (api.op == ApiOp::StreamCreate && !value.empty()) {
        // cudaStreamNonBlocking == CU_STREAM_NON_BLOCKING == 1; no flags argument: blocking.
        bool nonBlocking = false;
        if (const Expr* flags = arg(ce, api.value + 1); flags && !flags->isValueDependent()) {
          Expr::EvalResult r;
          if (flags->getType()->isIntegralOrEnumerationType() && flags->EvaluateAsInt(r, ctx_))
            nonBlocking = (r.Val.getInt().getZExtValue() & 1) != 0;
        }
        if (!nonBlocking) {
          blockingStreams_.insert(value);
          // A blocking stream's work also waits for legacy-stream work queued before it existed.
          model::Event& w = emit(EventKind::Wait, at);
          w.api = "implicit (legacy default stream)";
          w.stream = StreamRef::side(value);
          w.other = {StreamKind::Legacy, {}};
          w.streamExplicit = true;
          w.scope = 0;  // holds for every stream created here, also those made in a loop
        }
      }
      if (api.op == ApiOp::StreamCreate && arg(ce, api.value)) {
        const Expr* out = arg(ce, api.value)->IgnoreParenCasts();
        if (const auto* u = dyn_cast<UnaryOperator>(out); u && u->getOpcode() == UO_AddrOf) {
          const Expr* v = u->getSubExpr()->IgnoreParenImpCasts();
          if (const auto* d = dyn_cast<DeclRefExpr>(v)) streams_[d->getDecl()] = StreamRef::side(value);
          if (const auto* m = dyn_cast<MemberExpr>(v)) streams_[m->getMemberDecl()] = StreamRef::side(value);
        }
        createdStreams_.insert(value);  // also `streams[i]`, `plan[i].stream`: found by name
      }
      return;
    }
    case ApiOp::CurrentStream:
    case ApiOp::DefaultStream:
    case ApiOp::PoolStream:
    case ApiOp::ExternalStream:
      return;  // values, resolved where they are used (streamOf)
    case ApiOp::SetCurrentStream: {
      // Open a region for the rest of the block; a later call in the same block replaces it.
      StreamRef s = streamOf(streamArg);
      std::string key = std::to_string(blocks_.size());
      if (auto it = setCurrentRegion_.find(key); it != setCurrentRegion_.end()) {
        if (cur_ == it->second) popScope();
        if (!blocks_.empty())
          std::erase_if(blocks_.back(), [&](const BlockItem& b) { return b.kind == BlockItem::Region && b.scope == it->second; });
        setCurrentRegion_.erase(it);
      }
      if (s.kind != StreamKind::Current) {
        openRegion(at, s);
        setCurrentRegion_[key] = cur_;
      }
      return;
    }
    case ApiOp::Sync: {
      model::Event& e = emit(EventKind::HostSync, at);
      e.sync = api.sync;
      e.api = name;
      if (api.sync == SyncKind::Event) e.value = value;
      if (streamArg) explicitStream(e);
      else if (object && api.sync == SyncKind::Stream) { e.stream = streamOf(object); e.streamExplicit = true; }
      return;
    }
    case ApiOp::Wait: {
      model::Event& e = emit(EventKind::Wait, at);
      e.api = name;
      e.value = api.value >= 0 ? valueName(arg(ce, api.value)) : valueName(object);
      if (api.stream >= 0) explicitStream(e);
      else if (object) { e.stream = streamOf(object); e.streamExplicit = true; }  // stream.wait(ev)
      // An event made by a call (`s.wait(create_event(t))`) has no name: still an event wait.
      if (e.value.empty() && api.value >= 0) e.value = "<event>";
      return;
    }
    case ApiOp::EventRecord: {
      model::Event& e = emit(EventKind::EventRecord, at);
      e.api = name;
      e.value = api.value >= 0 ? valueName(arg(ce, api.value)) : valueName(object);
      // CUDAEvent::record() without a stream records on the current stream.
      if (streamArg) explicitStream(e);
      else if (api.value >= 0) { e.stream = omittedStream(); e.streamExplicit = true; }
      return;
    }
    case ApiOp::RecordStream: {
      model::Event& e = emit(EventKind::RecordStream, at);
      e.api = name;
      e.value = value;
      e.other = streamOf(streamArg);
      return;
    }
    case ApiOp::Launch: {
      StreamRef s = streamArg ? streamOf(streamArg) : StreamRef{StreamKind::Unknown, {}};
      legacyOrdering(s, at, false);
      model::Event& e = emit(EventKind::Work, at);
      e.api = name;
      e.stream = s;
      e.streamExplicit = true;
      legacyOrdering(s, at, true);
      return;
    }
    case ApiOp::Copy: {
      std::string src = valueName(arg(ce, api.src));
      CopyDir dir = api.fixedDir != CopyDir::Unknown ? api.fixedDir : copyDirFromKind(enumeratorName(arg(ce, api.dir)));
      // cudaMemcpyDefault: the direction follows from the pointers when both were allocated here.
      if (dir == CopyDir::Unknown && device_.count(src) && device_.count(value)) dir = CopyDir::DeviceToDevice;
      StreamRef s = api.async ? (streamArg ? streamOf(streamArg) : omittedStream()) : omittedStream();
      legacyOrdering(s, at, false);
      model::Event& e = emit(EventKind::Copy, at);
      e.api = name;
      e.value = value;
      if (!src.empty()) e.reads.push_back(src);
      if (!value.empty()) e.writes.push_back(value);
      e.dir = dir;
      e.nonBlocking = api.async;
      e.srcPinned = pinnedness(dir == CopyDir::DeviceToHost ? value : src);
      // Synchronous copies run on the legacy (or per-thread) default stream; no stream is
      // named at the call, so the stream is not explicit.
      if (api.async) explicitStream(e);
      else e.stream = omittedStream();
      // A device-to-device cudaMemcpy does not make the host wait (CUDA Runtime API,
      // "API synchronization behavior").
      if (dir != CopyDir::DeviceToDevice) withSync({});  // the copy event already reads `src`: one use, one event
      legacyOrdering(s, at, true);
      return;
    }
    case ApiOp::Memset: {
      StreamRef s = api.async && streamArg ? streamOf(streamArg) : omittedStream();
      legacyOrdering(s, at, false);
      model::Event& e = emit(EventKind::Work, at);
      e.api = name;
      if (!value.empty()) e.writes.push_back(value);
      if (api.async) explicitStream(e);
      else e.stream = omittedStream();
      legacyOrdering(s, at, true);
      return;
    }
    case ApiOp::Alloc: {
      // Managed memory may live on the host: only plain device allocations name device memory.
      if (!value.empty() && !api.managed) device_.insert(value);
      model::Event& e = emit(EventKind::Alloc, at);
      e.api = name;
      // cudaMallocAsync is stream-ordered: the memory is usable on `stream` from this point, so
      // it produces the value there. cudaMalloc's memory is ready when the call returns: no GPU
      // work to wait for, so it produces nothing a stream must wait on.
      if (api.async) {
        e.value = value;
        if (!value.empty()) e.writes.push_back(value);
        explicitStream(e);
      } else {
        e.stream = omittedStream();
      }
      withSync({});
      return;
    }
    case ApiOp::HostAlloc:
    case ApiOp::HostRegister:
      if (!value.empty()) pinned_.insert(value), pageable_.erase(value);
      withSync({});
      return;
    case ApiOp::Free:
    case ApiOp::HostFree: {
      // cudaFree waits for all work on the device before it frees: the sync comes first, and
      // it is device-wide (a later cross-stream use check must see it as ordering).
      if (api.sync != SyncKind::None) {
        model::Event& s = emit(EventKind::HostSync, at);
        s.sync = SyncKind::Device;
        s.api = name;
      }
      model::Event& e = emit(EventKind::Free, at);
      e.api = name;
      e.value = value;
      if (api.async) explicitStream(e);
      else e.stream = omittedStream();
      return;
    }
    case ApiOp::Clock: {
      model::Event& e = emit(EventKind::Clock, at);
      e.api = name;
      e.value = target;
      return;
    }
    case ApiOp::Backward: {
      model::Event& e = emit(EventKind::Backward, at);
      e.api = name;
      if (!value.empty()) e.reads.push_back(value);
      return;
    }
    default:
      return tensorOp(ce, object, name, target);
  }
}

// LibTorch tensor operations: syncing reads (item, cpu, nonzero), copies (to, cuda, copy_),
// factories, and plain ops as Work on the current stream (reads its tensor operands, writes
// the assigned variable or, for in-place `op_`, the object).
void FunctionLowering::tensorOp(const CallExpr* ce, const Expr* object, const std::string& name,
                                const std::string& target) {
  SourceLocation at = isa<CXXMemberCallExpr>(ce) ? ce->getExprLoc() : ce->getBeginLoc();
  const ApiEntry* api = lookupApi(name);
  std::string obj = valueName(object);
  std::string args = text(ce);
  std::vector<std::string> tensorArgs;
  for (const Expr* a : ce->arguments())
    if (isTensorQualType(a->getType()))
      if (std::string n = valueName(a); !n.empty()) tensorArgs.push_back(n);
  std::string subject = !obj.empty() ? obj : (tensorArgs.empty() ? std::string() : tensorArgs[0]);
  // `withRead`: the sync itself is the use (item()); when a copy or op event already reads the
  // value, the sync carries no reads (one use, one event).
  auto hostSync = [&](SyncKind k, bool withRead = false) {
    model::Event& s = emit(EventKind::HostSync, at);
    s.sync = k;
    s.api = name;
    if (withRead && !subject.empty()) s.reads.push_back(subject);
  };
  auto copy = [&](CopyDir dir, bool nonBlocking, const std::string& src, const std::string& dst) {
    model::Event& e = emit(EventKind::Copy, at);
    e.api = name;
    e.dir = dir;
    e.nonBlocking = nonBlocking;
    e.value = dst;
    if (!src.empty()) e.reads.push_back(src);
    if (!dst.empty()) e.writes.push_back(dst);
    e.srcPinned = pinnedness(dir == CopyDir::DeviceToHost ? dst : src);
    // A temporary source (`t.pin_memory().to(...)`) dies at the end of the statement.
    if (const auto* oc = object ? dyn_cast<CXXMemberCallExpr>(coreExpr(object)) : nullptr) {
      e.srcTemporary = true;
      if (oc->getMethodDecl() && oc->getMethodDecl()->getName() == "pin_memory") e.srcPinned = model::Tri::Yes;
    }
    if (!nonBlocking && dir != CopyDir::DeviceToDevice) hostSync(SyncKind::BlockingCopy);
  };
  if (api) {
    switch (api->op) {
      case ApiOp::TensorValueRead: return hostSync(SyncKind::ValueRead, true);
      case ApiOp::TensorToHost:
        pageable_.insert(target);
        return copy(CopyDir::DeviceToHost, hasTrueLiteral(ce, 0), obj, target);
      case ApiOp::TensorToDevice: {
        model::Event& a = emit(EventKind::Alloc, at);
        a.api = name;
        a.value = target;
        return copy(CopyDir::HostToDevice, hasTrueLiteral(ce, 0), obj, target);
      }
      case ApiOp::TensorTo: {
        std::string a = args.substr(args.find('(') == std::string::npos ? 0 : args.find('('));
        bool toCpu = mentionsAny(a, {"kCPU", "\"cpu\"", "DeviceType::CPU"});
        bool toCuda = mentionsAny(a, {"kCUDA", "cuda", "CUDA"});
        if (!toCpu && !toCuda) break;  // dtype or options conversion: plain work
        if (toCpu) pageable_.insert(target);
        CopyDir d = toCpu ? CopyDir::DeviceToHost : (pinned_.count(obj) || pageable_.count(obj)) ? CopyDir::HostToDevice : CopyDir::Unknown;
        return copy(d, hasTrueLiteral(ce, 0), obj, target);
      }
      case ApiOp::TensorCopyInto: {
        std::string src = valueName(arg(ce, 0));
        bool hostDst = pinned_.count(obj) || pageable_.count(obj);
        bool hostSrc = pinned_.count(src) || pageable_.count(src);
        CopyDir d = hostDst && !hostSrc ? CopyDir::DeviceToHost : hostSrc && !hostDst ? CopyDir::HostToDevice : CopyDir::Unknown;
        model::Event& e = emit(EventKind::Copy, at);
        e.api = name;
        e.dir = d;
        e.nonBlocking = hasTrueLiteral(ce, 1);
        e.value = obj;
        if (!src.empty()) e.reads.push_back(src);
        if (!obj.empty()) e.writes.push_back(obj);
        e.srcPinned = pinnedness(d == CopyDir::DeviceToHost ? obj : src);
        if (!e.nonBlocking && (d == CopyDir::DeviceToHost || d == CopyDir::HostToDevice)) hostSync(SyncKind::BlockingCopy);
        return;
      }
      case ApiOp::PinMemory:
        if (!target.empty()) pinned_.insert(target);
        return;
      case ApiOp::TensorSyncOp: {
        model::Event& w = emit(EventKind::Work, at);
        w.api = name;
        w.reads = tensorArgs;
        if (!obj.empty()) w.reads.insert(w.reads.begin(), obj);
        if (!target.empty()) w.writes.push_back(target);
        return hostSync(SyncKind::ValueRead);
      }
      default: break;
    }
  }
  if (isTensorFactory(name)) {
    // Device from the options as written: kCUDA / .cuda() / a tensor's options(); `_like`
    // factories take their argument's device (assumed CUDA: the pattern is GPU code).
    bool cuda = mentionsAny(args, {"CUDA", "cuda", "options()", "device()"}) || name.ends_with("_like");
    bool pinned = mentionsAny(args, {"pinned_memory(true)", "pin_memory(true)"});
    if (!cuda) {
      if (!target.empty()) (pinned ? pinned_ : pageable_).insert(target);
      return;
    }
    model::Event& e = emit(EventKind::Alloc, at);
    e.api = name;
    e.value = target;
    if (!target.empty()) e.writes.push_back(target);
    return;
  }
  const auto* md = dyn_cast_or_null<CXXMethodDecl>(ce->getCalleeDecl());
  std::string base = name.substr(name.rfind(':') == std::string::npos ? 0 : name.rfind(':') + 1);
  bool inPlace = md && base.size() > 1 && base.back() == '_' && base.front() != '_';
  bool tensorResult = isTensorQualType(ce->getType()) || ce->getType()->isDependentType();
  if (!tensorResult && !inPlace) return;  // sizes, dtypes, options: no GPU work
  if (name.rfind("at::cuda::", 0) == 0 || name.rfind("c10::", 0) == 0) return;
  model::Event& e = emit(EventKind::Work, at);
  e.api = name;
  e.reads = tensorArgs;
  if (!obj.empty()) e.reads.insert(e.reads.begin(), obj);
  if (inPlace && !obj.empty()) e.writes.push_back(obj);
  else if (base.ends_with("_out") && !tensorArgs.empty()) e.writes.push_back(tensorArgs[0]);
  if (!target.empty()) e.writes.push_back(target);
}

}  // namespace sl::cxx
