// Private to the lowering (Lowering.cpp: statements and scopes; LowerCalls.cpp: calls, values,
// streams). One FunctionLowering per function body; it walks statements in source order,
// keeps the scope stack, and appends events.
#pragma once
#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMap.h>
#include <clang/AST/Stmt.h>
#include <clang/Analysis/CFG.h>
#include <clang/Analysis/CFGStmtMap.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cxx/CudaApiTable.h"
#include "cxx/Lowering.h"
#include "model/StreamModel.h"

namespace sl::cxx {

// The name a model::Function gets, and a Call event's callee: "Class::method" or "function".
std::string modelFunctionName(const clang::FunctionDecl* fd);

class FunctionLowering {
 public:
  FunctionLowering(clang::ASTContext& ctx, model::Function& fn, const LowerOptions& opts,
                   std::set<unsigned>& lambdasSeen)
      : ctx_(ctx), sm_(ctx.getSourceManager()), fn_(fn), opts_(opts), lambdasSeen_(lambdasSeen) {}

  void lower(const clang::FunctionDecl* fd);
  // A project header's function: only the events it creates and consumes (EventUses.cpp).
  void headerEvents(const clang::FunctionDecl* fd);

  // ---- statements and scopes (Lowering.cpp) ----
 private:
  struct BlockItem {
    enum Kind { Tensor, Region } kind;
    std::string name;   // Tensor: the local's name
    int scope = -1;     // Region: the scope it opened
    bool produced = false;  // Tensor: initialised by GPU work in this function
  };

  void stmt(const clang::Stmt* s);
  void compound(const clang::CompoundStmt* cs);
  void varDecl(const clang::VarDecl* vd);
  void ifStmt(const clang::IfStmt* is);
  void loop(const clang::Stmt* s, const clang::Stmt* init, const clang::Expr* cond,
            const clang::Stmt* body, const clang::Stmt* inc);
  int pushScope(model::ScopeKind kind, clang::SourceLocation at, model::StreamRef stream = {});
  void popScope();
  void openRegion(clang::SourceLocation at, model::StreamRef stream);
  void closeBlock(clang::SourceLocation end);
  void returnedValues(const clang::Expr* v);
  bool fromMacroBody(clang::SourceLocation l) const;
  bool isGuardCondition(const clang::Expr* cond) const;
  // ---- events the body consumes (EventUses.cpp) ----
  void collectEventUses(const clang::Stmt* body);
  // ---- control flow (FlowGraph.cpp) ----
  void buildFlow(const clang::FunctionDecl* fd);
  int currentBlock() const;  // the CFG block of the statement being lowered, or -1

  // ---- expressions and calls (LowerCalls.cpp) ----
 public:
  void expr(const clang::Expr* e, const std::string& target = {});

 private:
  void call(const clang::CallExpr* ce, const std::string& target);
  void launch(const clang::CUDAKernelCallExpr* k);
  void apiCall(const ApiEntry& api, const std::string& name, const clang::CallExpr* ce,
               const clang::Expr* object, const std::string& target);
  void tensorOp(const clang::CallExpr* ce, const clang::Expr* object, const std::string& name,
                const std::string& target);
  void assignment(const clang::Expr* lhs, const clang::Expr* rhs);
  void noteEscapes(const clang::CallExpr* ce, const std::string& name);
  bool inlineHelper(const clang::CallExpr* ce, const clang::FunctionDecl* fd);
  void forwardedStreamWork(const clang::CallExpr* ce, const clang::FunctionDecl* fd);  // StreamForwarding.cpp
  Loc eventLoc(clang::SourceLocation l) const { return inlineDepth_ ? loc(inlineAt_) : loc(l); }

  model::Event& emit(model::EventKind kind, clang::SourceLocation at);
  model::StreamRef streamOf(const clang::Expr* e);
  model::StreamRef omittedStream() const;
  void legacyOrdering(const model::StreamRef& s, clang::SourceLocation at, bool after);
  std::string valueName(const clang::Expr* e) const;
  std::string text(const clang::Expr* e) const;
  Loc loc(clang::SourceLocation l) const;
  model::Tri pinnedness(const std::string& hostValue) const;
  const clang::Expr* arg(const clang::CallExpr* ce, int i) const;

  clang::ASTContext& ctx_;
  clang::SourceManager& sm_;
  model::Function& fn_;
  const LowerOptions& opts_;
  std::set<unsigned>& lambdasSeen_;  // lambda bodies already walked (macros repeat them)
  int cur_ = 0;                      // innermost scope
  std::vector<std::vector<BlockItem>> blocks_;
  std::map<const clang::ValueDecl*, model::StreamRef> streams_;
  std::set<std::string> pinned_, pageable_, escaped_;
  std::set<std::string> device_;           // device memory allocated here (cudaMalloc & co)
  std::set<std::string> blockingStreams_;  // created here without cudaStreamNonBlocking
  std::set<std::string> createdStreams_;   // value names of streams created here
  // Inlined project helpers (inlineHelper): depth, the call site, parameter -> argument names.
  int inlineDepth_ = 0;
  clang::SourceLocation inlineAt_;
  std::set<const clang::FunctionDecl*> inlining_;
  std::map<const clang::ValueDecl*, std::string> aliases_;
  std::map<std::string, int> setCurrentRegion_;  // open setCurrentCUDAStream region per block depth
  // The function's clang::CFG and where its statements sit in it. `anchor_` is the innermost
  // expression of this function's own body being lowered: events of lambdas and inlined helpers
  // take the block of the expression that runs them. Null anchor: no block (scope-end frees).
  std::unique_ptr<clang::CFG> cfg_;
  std::unique_ptr<clang::ParentMap> parents_;
  std::unique_ptr<clang::CFGStmtMap> cfgMap_;
  const clang::Stmt* anchor_ = nullptr;
  int lambdaDepth_ = 0;  // inside a lambda body walked where it is written
  bool anchored() const { return inlineDepth_ == 0 && lambdaDepth_ == 0; }
};

// The GPU work (a launch, an API call) that parameter `index` of `fd`, a stream, reaches in its
// body, directly or through up to `depth` further calls; null when none (StreamForwarding.cpp).
// `seen` stops recursion.
const clang::Stmt* workOnParam(const clang::FunctionDecl* fd, unsigned index, int depth,
                               std::set<const clang::FunctionDecl*>& seen);

// Kernels and device-only functions run on the GPU: no host-side stream operations in them.
inline bool runsOnDeviceOnly(const clang::FunctionDecl* fd) {
  return fd->hasAttr<clang::CUDAGlobalAttr>() ||
         (fd->hasAttr<clang::CUDADeviceAttr>() && !fd->hasAttr<clang::CUDAHostAttr>());
}
// A method that returns the stream its object wraps: CUDAStream::stream(), c10::Stream's
// unwrap, operator cudaStream_t.
inline bool unwrapsStream(const clang::CXXMethodDecl* md) {
  return md && (llvm::isa<clang::CXXConversionDecl>(md) || md->getName() == "stream" || md->getName() == "unwrap");
}

// Type classification by qualified name (through typedefs, references and const).
bool isTensorQualType(clang::QualType t);
bool isStreamQualType(clang::QualType t);
// `t` (through typedefs, references and const) is a type `is` names.
bool namedAs(clang::QualType t, bool (*is)(std::string_view));
std::string recordName(clang::QualType t);
// Strips the wrappers Clang puts around a value-producing expression (cleanups, temporaries,
// elidable copies, implicit casts) to reach the call that produced it.
const clang::Expr* coreExpr(const clang::Expr* e);

}  // namespace sl::cxx
