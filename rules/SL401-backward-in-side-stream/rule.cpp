// SL401 backward-in-side-stream: see rule.md.
#include "rules/Rule.h"
#include "rules/RuleHelpers.h"

namespace sl::rules {
namespace {

using model::EventKind;

class BackwardInSideStream : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions) {
      for (size_t i = 0; i < f.events.size(); ++i) {
        const auto& e = f.events[i];
        int region = model::enclosingSideRegion(f, e.scope);
        if (region < 0) continue;
        const model::Event* backward = nullptr;
        if (e.kind == EventKind::Backward) backward = &e;
        else if (e.kind == EventKind::Call)
          if (auto* s = ctx.summary().of(e.callee)) {
            backward = s->backward;
            // A helper that runs the forward and then its backward runs both in this region.
            if (backward && s->backwardOwner && forwardInCallee(*s->backwardOwner, *backward)) continue;
          }
        if (!backward || backward->srcTemporary || forwardInRegion(f, i, region) ||
            (backward == &e && rootsFromCallInRegion(f, i, region)))
          continue;
        const auto& scope = f.scopes[size_t(region)];
        Finding& out = ctx.report(
            e.loc, "backward runs inside a region on " + scope.stream.describe() +
                       ", but autograd runs each backward op on the stream of its forward op: only "
                       "the gradient seed moves to the side stream, nothing overlaps; run the forward "
                       "on this stream too, or call backward outside the region");
        ctx.note(out, scope.loc, "side-stream region starts here");
        if (backward != &e) {
          ctx.note(out, backward->loc, "backward is called here");
          // Through a callee the finding is as sure as the backward it reaches: a loss whose
          // device is a guess (a closure's tensors from elsewhere) makes the whole chain one.
          if (backward->confidence < e.confidence)
            out.properties["confidence"] = model::confidenceName(backward->confidence);
        }
      }
    }
  }

 private:
  // The graph was built in this region when every tensor backward starts from was produced
  // inside it (then autograd recorded the side stream for those ops).
  static bool forwardInCallee(const model::Function& g, const model::Event& backward) {
    if (backward.srcTemporary) return true;
    size_t at = size_t(&backward - g.events.data());
    if (backward.reads.empty() || at >= g.events.size()) return false;
    for (const auto& v : backward.reads)
      if (producerOf(g, v, at) < 0) return false;
    return true;
  }

  // `out, lse = merge(parts)` in the region, then `out.backward(g)`: the roots are none of
  // this function's parameters or attributes and nothing here produced them, but a call in the
  // region came before — the model does not tie a tuple unpack to its call, and that call is
  // where they were made, on this stream (bench/precision: judged wrong).
  static bool rootsFromCallInRegion(const model::Function& f, size_t at, int region) {
    const auto& e = f.events[at];
    if (e.reads.empty()) return false;
    for (const auto& v : e.reads) {
      if (producerOf(f, v, at) >= 0 || v.find('.') != std::string::npos || v.find('[') != std::string::npos) return false;
      for (const auto& p : f.params)
        if (p == v) return false;
    }
    for (size_t k = 0; k < at; ++k)
      if (f.events[k].kind == EventKind::Call && model::scopeWithin(f, f.events[k].scope, region)) return true;
    return false;
  }

  static bool forwardInRegion(const model::Function& f, size_t at, int region) {
    const auto& e = f.events[at];
    if (e.reads.empty()) return false;
    for (const auto& v : e.reads) {
      long p = producerOf(f, v, at);
      if (p < 0 || !model::scopeWithin(f, f.events[size_t(p)].scope, region)) return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL401() { return std::make_unique<BackwardInSideStream>(); }

}  // namespace sl::rules
