// The function's control-flow graph for the model (model::Flow): clang::CFG's blocks and edges,
// with paths that throw or call a noreturn function (TORCH_CHECK's failure branch,
// C10_CUDA_CHECK's error path) ended where they leave: they never reach a normal return, so
// a sync after `TORCH_CHECK(...)` still runs on every path that returns.
#include <clang/AST/ExprCXX.h>

#include "cxx/LowerState.h"

namespace sl::cxx {

using namespace clang;

namespace {

// Functions whose graphs are larger than this keep the structural approximation (dominators
// are quadratic in the block count).
constexpr unsigned kMaxBlocks = 3000;

bool leavesAbnormally(const CFGBlock& b) {
  if (b.hasNoReturnElement()) return true;
  // A throw is an element of its block (not its terminator); the block's edge goes to the exit.
  for (const CFGElement& e : b)
    if (auto s = e.getAs<CFGStmt>(); s && isa<CXXThrowExpr>(s->getStmt())) return true;
  return false;
}

}  // namespace

void FunctionLowering::buildFlow(const FunctionDecl* fd) {
  Stmt* body = fd->getBody();
  if (!body) return;
  CFG::BuildOptions o;
  o.setAllAlwaysAdd();
  cfg_ = CFG::buildCFG(fd, body, &ctx_, o);
  if (!cfg_ || cfg_->getNumBlockIDs() > kMaxBlocks) {
    cfg_.reset();
    return;
  }
  parents_ = std::make_unique<ParentMap>(body);
  cfgMap_.reset(CFGStmtMap::Build(cfg_.get(), parents_.get()));
  model::Flow& g = fn_.flow;
  g.succ.assign(cfg_->getNumBlockIDs(), {});
  for (const CFGBlock* b : *cfg_) {
    if (leavesAbnormally(*b)) continue;
    for (const CFGBlock::AdjacentBlock& s : b->succs())
      if (const CFGBlock* r = s.getReachableBlock()) g.succ[b->getBlockID()].push_back(int(r->getBlockID()));
  }
  g.entry = int(cfg_->getEntry().getBlockID());
  g.exit = int(cfg_->getExit().getBlockID());
  model::computeFlow(g);
}

int FunctionLowering::currentBlock() const {
  if (!cfgMap_ || !anchor_) return -1;
  const CFGBlock* b = cfgMap_->getBlock(anchor_);
  return b ? int(b->getBlockID()) : -1;
}

}  // namespace sl::cxx
