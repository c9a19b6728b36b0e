// Which events a function consumes (model::Function::eventUses): a record is only half of an
// ordering; the other half is whatever consumes the event. Collected syntactically over the
// whole body, lambdas included, so that a consumer the lowering does not model (a helper that
// waits, cudaEventElapsedTime, a container of events) still counts.
#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>

#include "cxx/LowerState.h"

namespace sl::cxx {

using namespace clang;
using model::EventKind;

namespace {

// An event, a pointer to one or an array of them (cudaEvent_t, CUevent, LibTorch's CUDAEvent).
bool isEventQualType(QualType t) {
  if (t.isNull()) return false;  // some expressions of templates carry no type
  t = t.getNonReferenceType();
  for (int depth = 0; depth < 4 && !t.isNull(); ++depth) {
    if (namedAs(t, isEventType)) return true;
    if (t->isPointerType()) t = t->getPointeeType();
    else if (t->isArrayType() && t->getPointeeOrArrayElementType()) t = QualType(t->getPointeeOrArrayElementType(), 0);
    else return false;
  }
  return false;
}

// Calls that make, record or destroy an event: their event argument is no consumer.
bool handlesEventOnly(const std::string& normalized) {
  if (const ApiEntry* api = lookupApi(normalized))
    return api->op == ApiOp::EventCreate || api->op == ApiOp::EventRecord;
  const std::string_view n = normalized;
  return n.size() >= 12 && n.substr(n.size() - 12) == "EventDestroy";
}

class Uses : public RecursiveASTVisitor<Uses> {
 public:
  explicit Uses(const std::function<std::string(const Expr*)>& name) : name_(name) {}
  std::vector<std::string> out;

  bool VisitCallExpr(CallExpr* ce) {
    std::string callee;
    if (const FunctionDecl* fd = ce->getDirectCallee()) callee = normalizeApiName(fd->getQualifiedNameAsString());
    const bool skip = !callee.empty() && handlesEventOnly(callee);
    unsigned first = 0;
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(ce)) {
      // `ev.record(s)` records; `ev.block(s)`, `ev.query()`, `ev.elapsed_time(o)` consume.
      if (!skip) use(mc->getImplicitObjectArgument());
    } else if (isa<CXXOperatorCallExpr>(ce)) {
      first = 1;  // operator= and friends: the object is assigned, not consumed
      if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(ce); oc->getOperator() != OO_Equal && !skip)
        use(oc->getArg(0));
    }
    if (skip) return true;
    // A wait or sync names its event by position: taken whatever its type reads as (an element
    // of std::vector<cudaEvent_t> is a `CUevent_st *&`, the typedef's name lost).
    if (const ApiEntry* api = callee.empty() ? nullptr : lookupApi(callee);
        api && (api->op == ApiOp::Wait || api->op == ApiOp::Sync) && api->value >= 0 &&
        unsigned(api->value) < ce->getNumArgs())
      use(ce->getArg(unsigned(api->value)), true);
    for (unsigned i = first; i < ce->getNumArgs(); ++i) use(ce->getArg(i));
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr* c) {
    // A copy of an event object is an alias (`auto e = ctx->done;`), whatever it is used for.
    for (const Expr* a : c->arguments()) use(a);
    return true;
  }
  bool VisitReturnStmt(ReturnStmt* r) { return use(r->getRetValue()), true; }
  bool VisitVarDecl(VarDecl* v) { return use(v->getInit()), true; }
  bool VisitBinaryOperator(BinaryOperator* b) {
    if (b->getOpcode() == BO_Assign) use(b->getRHS());  // `other = ev`: stored on, consumed there
    return true;
  }
  bool VisitInitListExpr(InitListExpr* l) {
    for (const Expr* a : l->inits()) use(a);
    return true;
  }

 private:
  void use(const Expr* e, bool anyType = false) {
    if (!e || (!anyType && !isEventQualType(e->getType()))) return;
    std::string n = name_(e);
    if (!n.empty() && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(std::move(n));
  }
  const std::function<std::string(const Expr*)>& name_;
};

// The events a body creates: `cudaEventCreate*(&ev, ...)` (the API table's EventCreate).
class Creations : public RecursiveASTVisitor<Creations> {
 public:
  std::vector<const Expr*> out;
  bool VisitCallExpr(CallExpr* ce) {
    const FunctionDecl* fd = ce->getDirectCallee();
    if (!fd) return true;
    const ApiEntry* api = lookupApi(normalizeApiName(fd->getQualifiedNameAsString()));
    if (api && api->op == ApiOp::EventCreate && api->value >= 0 && unsigned(api->value) < ce->getNumArgs())
      out.push_back(ce->getArg(unsigned(api->value)));
    return true;
  }
};

}  // namespace

// A function of a project header (a struct's constructor that creates its events, a helper that
// waits on them): not lowered, as the file's own code is, but the events it creates and those it
// consumes count for the file's records (rules/EventUse.h): a member event the project's header
// creates, recorded here and consumed nowhere in the translation unit, orders nothing.
void FunctionLowering::headerEvents(const FunctionDecl* fd) {
  const Stmt* body = fd->getBody();
  if (!body) return;
  collectEventUses(body);
  Creations c;
  c.TraverseStmt(const_cast<Stmt*>(body));
  for (const Expr* e : c.out) {
    model::Event ev;
    ev.kind = EventKind::EventCreate;
    ev.value = valueName(e);
    ev.api = "cudaEventCreate (in a project header)";
    if (!ev.value.empty()) fn_.events.push_back(std::move(ev));
  }
}

void FunctionLowering::collectEventUses(const Stmt* body) {
  if (!body) return;
  std::function<std::string(const Expr*)> name = [this](const Expr* e) { return valueName(e); };
  Uses uses(name);
  uses.TraverseStmt(const_cast<Stmt*>(body));
  for (auto& n : uses.out)
    if (std::find(fn_.eventUses.begin(), fn_.eventUses.end(), n) == fn_.eventUses.end())
      fn_.eventUses.push_back(std::move(n));
}

}  // namespace sl::cxx
