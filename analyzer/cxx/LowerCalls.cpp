// Expression-level lowering: calls looked up in the API table (CudaApiTable.cpp), `<<<>>>`
// launches, LibTorch tensor operations, value names and stream references.
#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include "cxx/LowerState.h"

namespace sl::cxx {

using namespace clang;
using model::CopyDir;
using model::EventKind;
using model::StreamKind;
using model::StreamRef;
using model::SyncKind;

// ---- small helpers -----------------------------------------------------------------------

Loc FunctionLowering::loc(SourceLocation l) const {
  if (l.isInvalid()) return {};
  // Macro arguments map to where they are written; macro bodies to the macro's use.
  SourceLocation f = sm_.getFileLoc(l);
  return {sm_.getSpellingLineNumber(f), sm_.getSpellingColumnNumber(f)};
}

model::Event& FunctionLowering::emit(EventKind kind, SourceLocation at) {
  model::Event e;
  e.kind = kind;
  e.loc = eventLoc(at);
  e.scope = cur_;
  e.stream = model::effectiveStream(fn_, cur_);
  e.block = currentBlock();
  fn_.events.push_back(std::move(e));
  return fn_.events.back();
}

std::string FunctionLowering::text(const Expr* e) const {
  if (!e) return {};
  CharSourceRange r = CharSourceRange::getTokenRange(sm_.getFileLoc(e->getBeginLoc()),
                                                     sm_.getFileLoc(e->getEndLoc()));
  return Lexer::getSourceText(r, sm_, ctx_.getLangOpts()).str();
}

const Expr* FunctionLowering::arg(const CallExpr* ce, int i) const {
  if (i < 0 || unsigned(i) >= ce->getNumArgs()) return nullptr;
  return ce->getArg(unsigned(i));
}

model::Tri FunctionLowering::pinnedness(const std::string& v) const {
  if (v.empty()) return model::Tri::Unknown;
  if (pinned_.count(v)) return model::Tri::Yes;
  if (pageable_.count(v)) return model::Tri::No;
  return model::Tri::Unknown;
}

// The legacy default stream synchronizes with every blocking stream: its work waits for what
// they queued before, and their later work waits for it. Modelled as the waits CUDA performs
// implicitly, for the blocking streams this function created (other streams' flags are unknown).
void FunctionLowering::legacyOrdering(const StreamRef& s, SourceLocation at, bool after) {
  if (s.kind != StreamKind::Legacy) return;
  for (const auto& b : blockingStreams_) {
    model::Event& w = emit(EventKind::Wait, at);
    w.api = "implicit (legacy default stream)";
    w.stream = after ? StreamRef::side(b) : s;
    w.other = after ? s : StreamRef::side(b);
    w.streamExplicit = true;
  }
}

StreamRef FunctionLowering::omittedStream() const {
  return {opts_.perThreadDefaultStream ? StreamKind::PerThread : StreamKind::Legacy, {}};
}

// The access path of a value as written: `x`, `buf_` (this-> dropped), `s.buf`, `bufs[]`.
// Looks through casts, `&`/`*`, pointer offsets and accessors that return the same storage
// (`t.data_ptr<float>()`, `v.data()`, `t.storage().data_ptr()`).
std::string FunctionLowering::valueName(const Expr* e) const {
  if (!e) return {};
  e = e->IgnoreParenCasts();
  if (const auto* c = dyn_cast<CXXConstructExpr>(e); c && c->getNumArgs() == 1) return valueName(c->getArg(0));
  if (const auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) return valueName(b->getSubExpr());
  if (const auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) return valueName(m->getSubExpr());
  if (const auto* u = dyn_cast<UnaryOperator>(e))
    if (u->getOpcode() == UO_AddrOf || u->getOpcode() == UO_Deref) return valueName(u->getSubExpr());
  if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
    if (auto it = aliases_.find(d->getDecl()); it != aliases_.end()) return it->second;
    return isa<VarDecl>(d->getDecl()) ? d->getDecl()->getNameAsString() : std::string();
  }
  if (const auto* m = dyn_cast<MemberExpr>(e)) {
    if (!isa<FieldDecl>(m->getMemberDecl())) return {};
    const Expr* base = m->getBase()->IgnoreParenImpCasts();
    // Members keep their owner in the name (like Python's `self.buf`): rules treat a value
    // with an owner as stored beyond the call.
    if (isa<CXXThisExpr>(base)) return "this->" + m->getMemberDecl()->getNameAsString();
    std::string b = valueName(base);
    return b.empty() ? std::string() : b + (m->isArrow() ? "->" : ".") + m->getMemberDecl()->getNameAsString();
  }
  if (const auto* a = dyn_cast<ArraySubscriptExpr>(e)) {
    std::string b = valueName(a->getBase());
    return b.empty() ? b : b + "[]";
  }
  if (const auto* bo = dyn_cast<BinaryOperator>(e); bo && bo->isAdditiveOp()) {
    if (bo->getLHS()->getType()->isPointerType()) return valueName(bo->getLHS());
    if (bo->getRHS()->getType()->isPointerType()) return valueName(bo->getRHS());
    return {};
  }
  if (const auto* mc = dyn_cast<CXXMemberCallExpr>(e)) {
    // Accessors of tensors, storages, data pointers, containers and smart pointers return
    // the object's own memory; any other method makes something new.
    std::string rec = recordName(mc->getImplicitObjectArgument()->getType());
    if (mc->getImplicitObjectArgument()->getType()->isPointerType())
      rec = recordName(mc->getImplicitObjectArgument()->getType()->getPointeeType());
    const auto* md = mc->getMethodDecl();
    std::string m = md ? md->getNameAsString() : "";
    bool accessor = m == "data_ptr" || m == "data" || m == "mutable_data_ptr" ||
                    m == "const_data_ptr" || m == "storage" || m == "get" || m == "contiguous";
    if (accessor || (isa_and_nonnull<CXXConversionDecl>(md)))
      return valueName(mc->getImplicitObjectArgument());
    // A tensor computed from a tensor (`x.sum()`, `x.view(...)`) reads as its source.
    if (isTensorType(rec) && isTensorQualType(mc->getType()))
      return valueName(mc->getImplicitObjectArgument());
    return {};
  }
  if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(e)) {
    if (oc->getOperator() == OO_Subscript && oc->getNumArgs() > 0) {
      std::string b = valueName(oc->getArg(0));
      return b.empty() ? b : b + "[]";
    }
    return {};
  }
  if (const auto* ce = dyn_cast<CallExpr>(e))
    if (const FunctionDecl* fd = ce->getDirectCallee(); fd && ce->getNumArgs() == 1)
      if (fd->getQualifiedNameAsString() == "thrust::raw_pointer_cast" ||
          fd->getQualifiedNameAsString() == "std::move")
        return valueName(ce->getArg(0));
  return {};
}

// What stream an expression names. Assumes the CUDA 13 spelling of the special handles:
// cudaStreamLegacy is ((cudaStream_t)0x1), cudaStreamPerThread ((cudaStream_t)0x2), and a
// LibTorch CUDAStream converts to cudaStream_t through an implicit conversion operator.
StreamRef FunctionLowering::streamOf(const Expr* e) {
  if (!e) return StreamRef::current();
  // A defaulted argument is its default's stream (`cudaStream_t stream = 0`, or a helper's
  // `= at::cuda::getCurrentCUDAStream()`).
  if (const auto* d = dyn_cast<CXXDefaultArgExpr>(e)) return d->getExpr() ? streamOf(d->getExpr()) : omittedStream();
  const Expr* w = e->IgnoreUnlessSpelledInSource();
  const Expr* lit = w->IgnoreParenCasts();
  if (isa<CXXNullPtrLiteralExpr>(lit) || isa<GNUNullExpr>(lit)) return omittedStream();
  if (const auto* il = dyn_cast<IntegerLiteral>(lit)) {
    uint64_t v = il->getValue().getZExtValue();
    if (v == 0) return omittedStream();
    if (v == 1) return {StreamKind::Legacy, {}};
    if (v == 2) return {StreamKind::PerThread, {}};
  }
  w = coreExpr(w);
  if (const auto* d = dyn_cast<DeclRefExpr>(w)) {
    if (auto it = streams_.find(d->getDecl()); it != streams_.end()) return it->second;
    return {StreamKind::Unknown, d->getDecl()->getNameAsString()};
  }
  if (const auto* m = dyn_cast<MemberExpr>(w)) {
    if (auto it = streams_.find(m->getMemberDecl()); it != streams_.end() && isa<CXXThisExpr>(m->getBase()->IgnoreParenImpCasts()))
      return it->second;
  }
  if (const auto* mc = dyn_cast<CXXMemberCallExpr>(w); mc && unwrapsStream(mc->getMethodDecl()))
    return streamOf(mc->getImplicitObjectArgument());
  if (const auto* ce = dyn_cast<CallExpr>(w)) {
    if (const FunctionDecl* fd = ce->getDirectCallee()) {
      if (const ApiEntry* a = lookupApi(normalizeApiName(fd->getQualifiedNameAsString()))) {
        switch (a->op) {
          case ApiOp::CurrentStream: return StreamRef::current();
          case ApiOp::DefaultStream: return {StreamKind::Default, {}};
          case ApiOp::PoolStream: return StreamRef::side(text(ce));
          default: break;
        }
      }
    }
  }
  if (const auto* c = dyn_cast<CXXConstructExpr>(w); c && c->getNumArgs() >= 1)
    return streamOf(c->getArg(0));
  // Elements of stream arrays and members of structs (`streams[i]`, `plan[i].stream`) are named
  // by their access path; one created here is a side stream under that name.
  if (std::string n = valueName(w); !n.empty())
    return {createdStreams_.count(n) ? StreamKind::Side : StreamKind::Unknown, n};
  return {StreamKind::Unknown, text(w)};
}

// ---- expressions -------------------------------------------------------------------------

void FunctionLowering::expr(const Expr* e, const std::string& target) {
  if (!e) return;
  // Error-recovered expressions (unresolved names, bad overloads) carry no reliable meaning.
  if (e->containsErrors()) return;
  // Events take the CFG block of the innermost expression of this function being lowered.
  struct Anchor {
    const Stmt*& slot;
    const Stmt* saved;
    ~Anchor() { slot = saved; }
  } restore{anchor_, anchor_};
  if (anchored()) anchor_ = e;
  const Expr* c = coreExpr(e);
  if (const auto* k = dyn_cast<CUDAKernelCallExpr>(c)) return launch(k);
  if (const auto* l = dyn_cast<LambdaExpr>(c)) {
    // Lambdas are walked where they are written (AT_DISPATCH and friends call them at once);
    // a macro that pastes one lambda into several cases yields one walk. Their events run
    // where the lambda is (the block of its expression).
    unsigned key = sm_.getFileLoc(l->getBeginLoc()).getRawEncoding();
    if (lambdasSeen_.insert(key).second) {
      ++lambdaDepth_;
      stmt(l->getBody());
      --lambdaDepth_;
    }
    return;
  }
  if (const auto* bo = dyn_cast<BinaryOperator>(c); bo && bo->getOpcode() == BO_Assign)
    return assignment(bo->getLHS(), bo->getRHS());
  if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(c); oc && oc->getOperator() == OO_Equal && oc->getNumArgs() == 2)
    return assignment(oc->getArg(0), oc->getArg(1));
  if (const auto* ce = dyn_cast<CallExpr>(c)) return call(ce, target);
  for (const Stmt* ch : c->children())
    if (const auto* ce = dyn_cast_or_null<Expr>(ch)) expr(ce);
}

void FunctionLowering::assignment(const Expr* lhs, const Expr* rhs) {
  std::string name = valueName(lhs);
  size_t before = fn_.events.size();
  expr(rhs, isTensorQualType(lhs->getType()) ? name : std::string());
  if (name.empty()) return;
  std::string src = valueName(coreExpr(rhs));
  if (!src.empty()) escaped_.insert(src);  // `member_ = t`: t lives on in member_
  if (lhs->getType()->isPointerType()) {
    const Expr* c = coreExpr(rhs)->IgnoreParenCasts();
    if (isa<CXXNewExpr>(c)) pageable_.insert(name);
    if (const auto* ce = dyn_cast<CallExpr>(c))
      if (const FunctionDecl* fd = ce->getDirectCallee(); fd && (fd->getName() == "malloc" || fd->getName() == "calloc"))
        pageable_.insert(name);
  }
  if (!isTensorQualType(lhs->getType())) return;
  // Reassigning a tensor releases its previous storage: a Free before the new value's producer.
  size_t at = fn_.events.size();
  for (size_t i = before; i < fn_.events.size(); ++i)
    if (std::find(fn_.events[i].writes.begin(), fn_.events[i].writes.end(), name) != fn_.events[i].writes.end()) {
      at = i;
      break;
    }
  if (at == fn_.events.size()) return;  // not a new value (alias or unknown): nothing freed
  // Only a value this function produced before is released (not a default-constructed one).
  bool hadValue = false;
  for (size_t i = 0; i < before && !hadValue; ++i)
    hadValue = std::find(fn_.events[i].writes.begin(), fn_.events[i].writes.end(), name) != fn_.events[i].writes.end();
  if (!hadValue) return;
  model::Event f;
  f.kind = EventKind::Free;
  f.loc = eventLoc(lhs->getBeginLoc());
  f.scope = cur_;
  f.stream = model::effectiveStream(fn_, cur_);
  f.block = currentBlock();
  f.value = name;
  f.api = "Tensor::operator=";
  fn_.events.insert(fn_.events.begin() + long(at), std::move(f));
}

void FunctionLowering::noteEscapes(const CallExpr* ce, const std::string& name) {
  // Containers and moves keep tensors alive beyond this scope.
  if (name == "push_back" || name == "emplace_back" || name == "insert" || name == "emplace" ||
      name == "std::move" || name == "push" || name == "append")
    for (const Expr* a : ce->arguments())
      if (std::string n = valueName(a); !n.empty()) escaped_.insert(n);
}

void FunctionLowering::call(const CallExpr* ce, const std::string& target) {
  const Expr* object = nullptr;
  const FunctionDecl* fd = ce->getDirectCallee();
  std::string name;
  if (const auto* mc = dyn_cast<CXXMemberCallExpr>(ce)) {
    object = mc->getImplicitObjectArgument();
    if (const auto* md = mc->getMethodDecl())
      name = recordName(QualType(md->getParent()->getTypeForDecl(), 0)) + "::" + md->getNameAsString();
  } else if (fd) {
    name = fd->getQualifiedNameAsString();
  } else if (const auto* ul = dyn_cast<UnresolvedLookupExpr>(ce->getCallee()->IgnoreParenImpCasts())) {
    // A call in a template with dependent arguments: name it by its first candidate.
    if (ul->getNumDecls() > 0) name = (*ul->decls_begin())->getQualifiedNameAsString();
  }
  if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(ce); oc && oc->isInfixBinaryOp() == false && oc->getOperator() == OO_Call)
    object = oc->getArg(0);  // f(...) on a callable object: lambdas run here
  if (object) expr(object);
  for (unsigned i = (isa<CXXOperatorCallExpr>(ce) && object) ? 1 : 0; i < ce->getNumArgs(); ++i)
    if (!isa<CXXDefaultArgExpr>(ce->getArg(i))) expr(ce->getArg(i));
  if (name.empty()) return;
  std::string norm = normalizeApiName(name);
  noteEscapes(ce, fd ? fd->getNameAsString() : norm);
  if (fd && fd->getQualifiedNameAsString() == "std::move") noteEscapes(ce, "std::move");
  if (const ApiEntry* api = lookupApi(norm)) return apiCall(*api, norm, ce, object, target);
  if (isTensorFactory(norm) || norm.rfind("at::", 0) == 0 || norm.rfind("torch::", 0) == 0)
    return tensorOp(ce, object, norm, target);
  if (fd && inlineHelper(ce, fd)) return;
  if (fd) forwardedStreamWork(ce, fd);
  // A call to a function defined in this file: rules follow it through ModuleSummary.
  if (fd) {
    const FunctionDecl* def = fd->getDefinition();
    if (!def && fd->getTemplateInstantiationPattern()) def = fd->getTemplateInstantiationPattern();
    if (def && def->getTemplateInstantiationPattern()) def = def->getTemplateInstantiationPattern();
    if (def && sm_.isInMainFile(sm_.getExpansionLoc(def->getLocation()))) {
      model::Event& e = emit(EventKind::Call, ce->getBeginLoc());
      e.callee = modelFunctionName(def);
      e.api = e.callee;
      for (const Expr* a : ce->arguments())
        if (isTensorQualType(a->getType()))
          if (std::string n = valueName(a); !n.empty()) e.reads.push_back(n);
    }
  }
}


// Free functions the project defines in its own (non-system) headers -- `stream_wait(a, b)`,
// `launch(kernel, stream)` wrappers -- are walked at the call site: their events take the call's
// location, their parameters the caller's streams and value names. Bounded: depth 2, no recursion.
bool FunctionLowering::inlineHelper(const CallExpr* ce, const FunctionDecl* fd) {
  if (isa<CXXMethodDecl>(fd) || isa<CXXOperatorCallExpr>(ce)) return false;
  const FunctionDecl* def = fd->getDefinition();
  if (!def || !def->getBody() || inlineDepth_ >= 2 || inlining_.count(def)) return false;
  SourceLocation where = sm_.getExpansionLoc(def->getLocation());
  if (sm_.isInMainFile(where) || sm_.isInSystemHeader(where) || where.isInvalid()) return false;
  if (runsOnDeviceOnly(def)) return false;
  for (unsigned i = 0; i < def->getNumParams() && i < ce->getNumArgs(); ++i) {
    const ParmVarDecl* p = def->getParamDecl(i);
    if (isStreamQualType(p->getType())) streams_[p] = streamOf(ce->getArg(i));
    if (std::string n = valueName(ce->getArg(i)); !n.empty()) aliases_[p] = n;
  }
  if (inlineDepth_++ == 0) inlineAt_ = ce->getBeginLoc();
  inlining_.insert(def);
  stmt(def->getBody());
  inlining_.erase(def);
  --inlineDepth_;
  return true;
}

}  // namespace sl::cxx
