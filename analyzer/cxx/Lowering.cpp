// Statement-level lowering: scopes (function, loop, branch, guarded, stream regions opened by
// RAII guards or setCurrentCUDAStream), local lifetimes (Free at the closing brace), and the
// walk over every function defined in the main file.
#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Basic/SourceManager.h>

#include "cxx/LowerState.h"

namespace sl::cxx {

using namespace clang;
using model::EventKind;
using model::ScopeKind;
using model::StreamRef;

// ---- types -------------------------------------------------------------------------------

std::string recordName(QualType t) {
  t = t.getNonReferenceType();
  if (const auto* rd = t->getAsCXXRecordDecl()) return rd->getQualifiedNameAsString();
  return {};
}

bool isTensorQualType(QualType t) {
  t = t.getNonReferenceType();
  if (isTensorType(recordName(t))) return true;
  // std::optional<Tensor> / c10::optional<Tensor>: the tensor, when present.
  if (const auto* sd = dyn_cast_or_null<ClassTemplateSpecializationDecl>(t->getAsCXXRecordDecl())) {
    std::string n = sd->getQualifiedNameAsString();
    if ((n == "std::optional" || n == "c10::optional") && sd->getTemplateArgs().size() == 1 &&
        sd->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
      return isTensorType(recordName(sd->getTemplateArgs()[0].getAsType()));
  }
  return false;
}

bool namedAs(QualType t, bool (*is)(std::string_view)) {
  t = t.getNonReferenceType();
  // cudaStream_t and CUstream are typedefs of the same pointer: look at every sugar level.
  for (QualType q = t;;) {
    if (const auto* tt = q->getAs<TypedefType>()) {
      if (is(tt->getDecl()->getName())) return true;
      q = tt->desugar();
      continue;
    }
    break;
  }
  return is(recordName(t)) || is(t.getUnqualifiedType().getAsString());
}

bool isStreamQualType(QualType t) { return namedAs(t, isStreamType); }

const Expr* coreExpr(const Expr* e) {
  while (e) {
    e = e->IgnoreImplicit()->IgnoreParens();
    if (const auto* c = dyn_cast<CXXConstructExpr>(e)) {
      // An elidable copy/move of a temporary: the value is its argument.
      if (c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor()) {
        e = c->getArg(0);
        continue;
      }
    }
    if (const auto* f = dyn_cast<CXXFunctionalCastExpr>(e)) { e = f->getSubExpr(); continue; }
    break;
  }
  return e;
}

std::string modelFunctionName(const FunctionDecl* fd) {
  if (const auto* md = dyn_cast<CXXMethodDecl>(fd))
    return md->getParent()->getNameAsString() + "::" + fd->getNameAsString();
  return fd->getNameAsString();
}

// ---- scopes ------------------------------------------------------------------------------

int FunctionLowering::pushScope(ScopeKind kind, SourceLocation at, StreamRef stream) {
  model::Scope s;
  s.kind = kind;
  s.parent = cur_;
  s.loc = eventLoc(at);
  s.stream = std::move(stream);
  fn_.scopes.push_back(std::move(s));
  cur_ = int(fn_.scopes.size() - 1);
  return cur_;
}

void FunctionLowering::popScope() {
  if (cur_ > 0) cur_ = fn_.scopes[size_t(cur_)].parent;
}

void FunctionLowering::openRegion(SourceLocation at, StreamRef stream) {
  int s = pushScope(ScopeKind::StreamRegion, at, std::move(stream));
  if (!blocks_.empty()) blocks_.back().push_back({BlockItem::Region, {}, s});
}

// Scopes made by a macro's own text (AT_DISPATCH's switch, C10_CUDA_CHECK's do/while(0)) are
// not the user's control flow: the code in them runs once, where the macro is used.
bool FunctionLowering::fromMacroBody(SourceLocation l) const {
  return l.isMacroID() && !sm_.isMacroArgExpansion(l);
}

// `if (step % N == 0)`, `if (verbose)`, `if (debug_)`: a logging/interval guard, not hot path.
bool FunctionLowering::isGuardCondition(const Expr* cond) const {
  if (!cond) return false;
  struct Finder {
    static bool visit(const Stmt* s) {
      if (!s) return false;
      if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->getOpcode() == BO_Rem) return true;
      const NamedDecl* nd = nullptr;
      if (const auto* dr = dyn_cast<DeclRefExpr>(s)) nd = dr->getDecl();
      if (const auto* me = dyn_cast<MemberExpr>(s)) nd = me->getMemberDecl();
      if (nd && nd->getIdentifier()) {
        std::string n = nd->getName().lower();
        for (const char* w : {"verbose", "debug", "log", "print", "profil"})
          if (n.find(w) != std::string::npos) return true;
      }
      for (const Stmt* c : s->children())
        if (visit(c)) return true;
      return false;
    }
  };
  return Finder::visit(cond);
}

// ---- statements --------------------------------------------------------------------------

void FunctionLowering::stmt(const Stmt* s) {
  if (!s) return;
  if (const auto* e = dyn_cast<Expr>(s)) return expr(e);
  if (const auto* cs = dyn_cast<CompoundStmt>(s)) return compound(cs);
  if (const auto* ds = dyn_cast<DeclStmt>(s)) {
    for (const Decl* d : ds->decls())
      if (const auto* vd = dyn_cast<VarDecl>(d)) varDecl(vd);
    return;
  }
  if (const auto* is = dyn_cast<IfStmt>(s)) return ifStmt(is);
  if (const auto* fs = dyn_cast<ForStmt>(s))
    return loop(fs, fs->getInit(), fs->getCond(), fs->getBody(), fs->getInc());
  if (const auto* ws = dyn_cast<WhileStmt>(s)) return loop(ws, nullptr, ws->getCond(), ws->getBody(), nullptr);
  if (const auto* ds = dyn_cast<DoStmt>(s)) {
    // do { ... } while (0): a statement wrapper (macros), runs once.
    bool once = false;
    if (const Expr* c = ds->getCond(); c && !c->isValueDependent()) {
      if (auto v = c->getIntegerConstantExpr(ctx_)) once = v->isZero();
    }
    if (once || fromMacroBody(ds->getBeginLoc())) return stmt(ds->getBody());
    return loop(ds, nullptr, ds->getCond(), ds->getBody(), nullptr);
  }
  if (const auto* rs = dyn_cast<CXXForRangeStmt>(s)) {
    if (rs->getInit()) stmt(rs->getInit());
    expr(rs->getRangeInit());
    pushScope(ScopeKind::Loop, rs->getBeginLoc());
    if (rs->getLoopVariable()) varDecl(rs->getLoopVariable());
    stmt(rs->getBody());
    popScope();
    return;
  }
  if (const auto* rs = dyn_cast<ReturnStmt>(s)) {
    if (const Expr* v = rs->getRetValue()) {
      expr(v);
      if (!inlineDepth_) returnedValues(v);  // an inlined helper returns to its caller
    }
    return;
  }
  if (const auto* ss = dyn_cast<SwitchStmt>(s)) {
    if (ss->getInit()) stmt(ss->getInit());
    expr(ss->getCond());
    bool own = !fromMacroBody(ss->getBeginLoc());
    if (own) pushScope(ScopeKind::Branch, ss->getBeginLoc());
    stmt(ss->getBody());
    if (own) popScope();
    return;
  }
  if (const auto* ts = dyn_cast<CXXTryStmt>(s)) {
    stmt(ts->getTryBlock());
    for (unsigned i = 0; i < ts->getNumHandlers(); ++i) {
      pushScope(ScopeKind::Branch, ts->getHandler(i)->getBeginLoc());
      stmt(ts->getHandler(i)->getHandlerBlock());
      popScope();
    }
    return;
  }
  for (const Stmt* c : s->children()) stmt(c);  // labels, case bodies, attributed statements
}

// Only the values themselves escape (`return y;`, `return {y, z};`, make_tuple(y, z)), not
// what is computed from them (`return y.sum();`).
void FunctionLowering::returnedValues(const Expr* v) {
  const Expr* r = coreExpr(v)->IgnoreParenCasts();
  if (isa<DeclRefExpr>(r) || isa<MemberExpr>(r)) {
    if (std::string n = valueName(r); !n.empty()) fn_.returned.push_back(n);
    return;
  }
  if (const auto* il = dyn_cast<InitListExpr>(r)) {
    for (const Expr* e : il->inits()) returnedValues(e);
    return;
  }
  if (const auto* ce = dyn_cast<CXXConstructExpr>(r)) {
    for (const Expr* e : ce->arguments()) returnedValues(e);
    return;
  }
  if (const auto* ce = dyn_cast<CallExpr>(r); ce && ce->getDirectCallee()) {
    std::string n = ce->getDirectCallee()->getQualifiedNameAsString();
    if (n == "std::move" || n == "std::make_tuple" || n == "std::make_pair" || n == "std::tuple")
      for (const Expr* e : ce->arguments()) returnedValues(e);
  }
}

void FunctionLowering::compound(const CompoundStmt* cs) {
  blocks_.emplace_back();
  for (const Stmt* c : cs->body()) stmt(c);
  // Locals die on every way out of the block (fall-through, return, break): no one CFG block
  // holds that, so scope-end frees keep the structural approximation.
  const Stmt* saved = anchor_;
  if (anchored()) anchor_ = nullptr;
  closeBlock(cs->getRBracLoc());
  anchor_ = saved;
}

// The closing brace: locals die in reverse declaration order, so a guard declared after a
// tensor restores the stream before that tensor is released.
void FunctionLowering::closeBlock(SourceLocation end) {
  std::vector<BlockItem> items = std::move(blocks_.back());
  blocks_.pop_back();
  for (auto it = items.rbegin(); it != items.rend(); ++it) {
    if (it->kind == BlockItem::Region) {
      if (cur_ == it->scope) popScope();
      continue;
    }
    if (!it->produced || escaped_.count(it->name)) continue;
    bool returned = false;
    for (const auto& r : fn_.returned) returned |= r == it->name;
    if (returned) continue;
    model::Event& e = emit(EventKind::Free, end);
    e.value = it->name;
    e.api = "~Tensor";
  }
}

void FunctionLowering::varDecl(const VarDecl* vd) {
  const std::string name = vd->getNameAsString();
  const std::string rec = recordName(vd->getType());
  const Expr* init = vd->getInit();
  if (isStreamGuardType(rec)) {
    // CUDAStreamGuard g(s): the rest of the block runs with `s` current.
    const auto* ce = init ? dyn_cast<CXXConstructExpr>(coreExpr(init)) : nullptr;
    if (!ce || ce->getNumArgs() == 0 || isa<CXXDefaultArgExpr>(ce->getArg(0))) return;
    const Expr* a = ce->getArg(0);
    expr(a);
    // CUDAMultiStreamGuard({s1, s2}): the first stream is the current device's.
    if (const auto* il = dyn_cast<InitListExpr>(coreExpr(a)); il && il->getNumInits() > 0)
      a = il->getInit(0);
    openRegion(vd->getLocation(), streamOf(a));
    return;
  }
  if (isTorchEventType(rec)) {
    // A CUDAEvent owns its cudaEvent_t (created at first record, destroyed with the object).
    if (init) expr(init);
    model::Event& e = emit(EventKind::EventCreate, vd->getLocation());
    e.value = name;
    e.api = "at::cuda::CUDAEvent";
    return;
  }
  if (isStreamQualType(vd->getType())) {
    if (init) expr(init);
    StreamRef r = init ? streamOf(init) : StreamRef{model::StreamKind::Unknown, name};
    // A pool stream is a side stream known by this variable's name from here on.
    if (r.kind == model::StreamKind::Side) r.name = name;
    streams_[vd] = r;
    return;
  }
  if (isTensorQualType(vd->getType())) {
    size_t before = fn_.events.size();
    if (init) expr(init, name);
    bool produced = false;
    for (size_t i = before; i < fn_.events.size(); ++i)
      for (const auto& w : fn_.events[i].writes) produced |= w == name;
    if (!blocks_.empty() && !vd->getType()->isReferenceType())
      blocks_.back().push_back({BlockItem::Tensor, name, -1, produced});
    return;
  }
  if (!init) {
    if (vd->getType()->isConstantArrayType()) pageable_.insert(name);  // stack memory
    if (recordName(vd->getType()) == "std::vector") pageable_.insert(name);
    return;
  }
  const Expr* c = coreExpr(init)->IgnoreParenCasts();  // (float*)malloc(n)
  if (isa<CXXNewExpr>(c) || recordName(vd->getType()) == "std::vector") pageable_.insert(name);
  if (const auto* ce = dyn_cast<CallExpr>(c))
    if (const FunctionDecl* fd = ce->getDirectCallee())
      if (fd->getName() == "malloc" || fd->getName() == "calloc" || fd->getName() == "aligned_alloc")
        pageable_.insert(name);
  expr(init, name);
}

void FunctionLowering::ifStmt(const IfStmt* is) {
  if (is->getInit()) stmt(is->getInit());
  if (is->getConditionVariable()) varDecl(is->getConditionVariable());
  else expr(is->getCond());
  if (is->isConsteval() || fromMacroBody(is->getBeginLoc())) {
    stmt(is->getThen());
    stmt(is->getElse());
    return;
  }
  pushScope(isGuardCondition(is->getCond()) ? ScopeKind::Guarded : ScopeKind::Branch,
            is->getBeginLoc());
  stmt(is->getThen());
  popScope();
  if (const Stmt* e = is->getElse()) {
    pushScope(ScopeKind::Branch, is->getElseLoc());
    stmt(e);
    popScope();
  }
}

void FunctionLowering::loop(const Stmt* s, const Stmt* init, const Expr* cond,
                            const Stmt* body, const Stmt* inc) {
  if (init) stmt(init);
  bool own = !fromMacroBody(s->getBeginLoc());
  if (own) pushScope(ScopeKind::Loop, s->getBeginLoc());
  if (cond) expr(cond);
  stmt(body);
  if (inc) stmt(inc);
  if (own) popScope();
}

void FunctionLowering::lower(const FunctionDecl* fd) {
  fn_.name = modelFunctionName(fd);
  fn_.loc = loc(fd->getLocation());
  model::Scope root;
  root.loc = fn_.loc;
  fn_.scopes.push_back(root);
  for (const ParmVarDecl* p : fd->parameters()) {
    fn_.params.push_back(p->getNameAsString());
    if (isStreamQualType(p->getType()))
      streams_[p] = StreamRef{model::StreamKind::Unknown, p->getNameAsString()};
  }
  // Constructor initializers run before the body (members' streams, tensors).
  if (const auto* ctor = dyn_cast<CXXConstructorDecl>(fd))
    for (const CXXCtorInitializer* ci : ctor->inits())
      if (ci->isWritten() && ci->getInit()) expr(ci->getInit());
  buildFlow(fd);
  stmt(fd->getBody());
  collectEventUses(fd->getBody());
}

// ---- the translation unit ----------------------------------------------------------------

namespace {

class TuWalker {
 public:
  TuWalker(ASTContext& ctx, model::Module& m, const LowerOptions& o) : ctx_(ctx), m_(m), o_(o) {}

  void decls(const DeclContext* dc) {
    for (const Decl* d : dc->decls()) decl(d);
  }

 private:
  void decl(const Decl* d) {
    const SourceManager& sm = ctx_.getSourceManager();
    if (const auto* ns = dyn_cast<NamespaceDecl>(d)) return decls(ns);
    if (const auto* ls = dyn_cast<LinkageSpecDecl>(d)) return decls(ls);
    if (const auto* ct = dyn_cast<ClassTemplateDecl>(d)) return decl(ct->getTemplatedDecl());
    if (const auto* ft = dyn_cast<FunctionTemplateDecl>(d)) return decl(ft->getTemplatedDecl());
    if (isa<ClassTemplateSpecializationDecl>(d)) return;  // instantiations repeat the pattern
    if (const auto* rd = dyn_cast<CXXRecordDecl>(d)) {
      if (rd->isThisDeclarationADefinition() && !rd->isLambda()) decls(rd);
      return;
    }
    const auto* fd = dyn_cast<FunctionDecl>(d);
    if (!fd || !fd->doesThisDeclarationHaveABody() || fd->isImplicit()) return;
    if (fd->isTemplateInstantiation() || runsOnDeviceOnly(fd)) return;
    if (!sm.isInMainFile(sm.getExpansionLoc(fd->getLocation()))) {
      if (!sm.isInSystemHeader(sm.getExpansionLoc(fd->getLocation()))) headerEvents(fd);
      return;
    }
    model::Function f;
    FunctionLowering fl(ctx_, f, o_, lambdasSeen_);
    fl.lower(fd);
    m_.functions.push_back(std::move(f));
  }

  // Events a project header's function creates and consumes, kept on `<module>` (functions[0]).
  void headerEvents(const FunctionDecl* fd) {
    model::Function scratch;
    scratch.scopes.emplace_back();
    FunctionLowering(ctx_, scratch, o_, lambdasSeen_).headerEvents(fd);
    model::Function& top = m_.functions[0];
    for (auto& e : scratch.events) top.events.push_back(std::move(e));
    for (auto& u : scratch.eventUses)
      if (std::find(top.eventUses.begin(), top.eventUses.end(), u) == top.eventUses.end()) top.eventUses.push_back(std::move(u));
  }

  ASTContext& ctx_;
  model::Module& m_;
  const LowerOptions& o_;
  std::set<unsigned> lambdasSeen_;
};

}  // namespace

model::Module lowerMainFile(ASTContext& ctx, const std::string& path, const LowerOptions& opts) {
  model::Module m;
  m.path = path;
  m.lang = model::Lang::Cpp;
  model::Function top;
  top.name = "<module>";
  top.scopes.emplace_back();
  m.functions.push_back(std::move(top));
  TuWalker(ctx, m, opts).decls(ctx.getTranslationUnitDecl());
  return m;
}

}  // namespace sl::cxx
