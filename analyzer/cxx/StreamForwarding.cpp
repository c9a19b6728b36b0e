// Which stream parameters of a function reach GPU work: `launch(x, n, cudaStream_t stream)`
// that launches `<<<g, b, 0, stream>>>`, calls `cudaMemcpyAsync(..., stream)`, or hands
// `stream` to another such function. A call binding that parameter to the legacy or the
// device's default stream (`launch(x, n, nullptr)`, a defaulted `cudaStream_t stream = 0`)
// issues that work there: SL601 is then about the call, not about the helper, which is right
// to use the stream it is given.
#include <clang/AST/Decl.h>
#include <clang/AST/ExprCXX.h>
#include <clang/Basic/SourceManager.h>

#include "cxx/CudaApiTable.h"
#include "cxx/LowerState.h"

namespace sl::cxx {

using namespace clang;

namespace {

// `e` names parameter `p` (through casts, `.stream()`/conversions of a CUDAStream wrapper).
bool namesParam(const Expr* e, const ParmVarDecl* p) {
  if (!e) return false;
  e = coreExpr(e->IgnoreUnlessSpelledInSource());
  if (const auto* d = dyn_cast<DeclRefExpr>(e)) return d->getDecl() == p;
  if (const auto* mc = dyn_cast<CXXMemberCallExpr>(e)) {
    if (unwrapsStream(mc->getMethodDecl())) return namesParam(mc->getImplicitObjectArgument(), p);
  }
  if (const auto* c = dyn_cast<CXXConstructExpr>(e); c && c->getNumArgs() >= 1) return namesParam(c->getArg(0), p);
  return false;
}

// Searches a body for GPU work on `p`: a launch's stream, the stream argument of an API call,
// or a stream parameter of a project function that forwards it (depth-bounded, no recursion).
class ForwardSearch {
 public:
  ForwardSearch(const ParmVarDecl* p, int depth, std::set<const FunctionDecl*>& seen)
      : p_(p), depth_(depth), seen_(seen) {}

  // The work on `p` in `s` (the innermost launch or API call, also inside a further helper).
  const Stmt* in(const Stmt* s) {
    if (!s) return nullptr;
    if (const auto* k = dyn_cast<CUDAKernelCallExpr>(s))
      if (const auto* cfg = dyn_cast_or_null<CallExpr>(k->getConfig()); cfg && cfg->getNumArgs() >= 4 &&
                                                                        namesParam(cfg->getArg(3), p_))
        return s;
    if (const auto* ce = dyn_cast<CallExpr>(s); ce && !isa<CUDAKernelCallExpr>(s))
      if (const Stmt* w = callForwards(ce)) return w;
    for (const Stmt* c : s->children())
      if (const Stmt* w = in(c)) return w;
    return nullptr;
  }

 private:
  const Stmt* callForwards(const CallExpr* ce) {
    const FunctionDecl* fd = ce->getDirectCallee();
    if (!fd) return nullptr;
    if (const ApiEntry* api = lookupApi(normalizeApiName(fd->getQualifiedNameAsString()))) {
      bool work = api->op == ApiOp::Launch || api->op == ApiOp::Copy || api->op == ApiOp::Memset ||
                  api->op == ApiOp::Alloc || api->op == ApiOp::Free;
      bool onP = work && api->stream >= 0 && unsigned(api->stream) < ce->getNumArgs() &&
                 namesParam(ce->getArg(unsigned(api->stream)), p_);
      return onP ? ce : nullptr;
    }
    if (depth_ <= 0) return nullptr;
    for (unsigned i = 0; i < ce->getNumArgs(); ++i)
      if (namesParam(ce->getArg(i), p_))
        if (const Stmt* w = workOnParam(fd, i, depth_ - 1, seen_)) return w;
    return nullptr;
  }

  const ParmVarDecl* p_;
  int depth_;
  std::set<const FunctionDecl*>& seen_;
};

// `p` is assigned in `s` (`if (!stream) stream = at::cuda::getCurrentCUDAStream();`): what the
// caller passed is then not necessarily what the work runs on.
bool reassigned(const Stmt* s, const ParmVarDecl* p) {
  if (!s) return false;
  if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp() && namesParam(bo->getLHS(), p))
    return true;
  if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(s); oc && oc->getOperator() == OO_Equal && oc->getNumArgs() == 2 &&
                                                          namesParam(oc->getArg(0), p))
    return true;
  for (const Stmt* c : s->children())
    if (reassigned(c, p)) return true;
  return false;
}

}  // namespace

const Stmt* workOnParam(const FunctionDecl* fd, unsigned index, int depth, std::set<const FunctionDecl*>& seen) {
  const FunctionDecl* def = fd ? fd->getDefinition() : nullptr;
  if (def && def->getTemplateInstantiationPattern()) def = def->getTemplateInstantiationPattern();
  if (!def || !def->getBody() || index >= def->getNumParams() || !seen.insert(def).second) return nullptr;
  const ParmVarDecl* p = def->getParamDecl(index);
  const Stmt* found = isStreamQualType(p->getType()) && !reassigned(def->getBody(), p) ? ForwardSearch(p, depth, seen).in(def->getBody()) : nullptr;
  seen.erase(def);
  return found;
}

// A project function called with the legacy or the default stream for a stream parameter that
// reaches GPU work: that work, at the call (the call names the stream; the helper does not).
void FunctionLowering::forwardedStreamWork(const CallExpr* ce, const FunctionDecl* fd) {
  const FunctionDecl* def = fd->getDefinition();
  if (!def || sm_.isInSystemHeader(sm_.getExpansionLoc(def->getLocation()))) return;
  for (unsigned i = 0; i < ce->getNumArgs() && i < def->getNumParams(); ++i) {
    if (!isStreamQualType(def->getParamDecl(i)->getType())) continue;
    model::StreamRef s = streamOf(ce->getArg(i));
    if (s.kind != model::StreamKind::Legacy && s.kind != model::StreamKind::Default) continue;
    std::set<const FunctionDecl*> seen;
    const Stmt* work = workOnParam(def, i, 2, seen);
    if (!work) continue;
    const auto* given = dyn_cast<CXXDefaultArgExpr>(ce->getArg(i));
    const std::string param = def->getParamDecl(i)->getNameAsString();
    model::Event& e = emit(model::EventKind::Work, ce->getBeginLoc());
    e.stream = s;
    e.streamExplicit = true;
    e.api = def->getNameAsString() + "(" + param + " = " + (given ? text(given->getExpr()) : text(ce->getArg(i))) + ")";
    // Where the helper's work takes the stream, when it is in this file (notes name this file).
    SourceLocation at = sm_.getExpansionLoc(work->getBeginLoc());
    if (sm_.isInMainFile(at))
      e.evidence.push_back({loc(at), "the stream '" + def->getNameAsString() + "' is given as '" + param + "'" +
                                         (given ? " (left at its default)" : "") + " reaches this GPU work"});
  }
}

}  // namespace sl::cxx
