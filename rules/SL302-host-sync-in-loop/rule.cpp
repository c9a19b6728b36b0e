// SL302 host-sync-in-loop: see rule.md.
#include "rules/Rule.h"

namespace sl::rules {
namespace {

class HostSyncInLoop : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions)
      for (const auto& e : f.events) {
        if (e.kind != model::EventKind::HostSync) continue;
        int loop = model::enclosingScope(f, e.scope, model::ScopeKind::Loop);
        if (loop < 0) continue;
        // A guard between the sync and the loop (`if step % N == 0`) makes it occasional.
        int guard = model::enclosingScope(f, e.scope, model::ScopeKind::Guarded);
        if (guard >= 0 && model::scopeWithin(f, guard, loop)) continue;
        std::string what = e.api.empty() ? "this call" : "'" + e.api + "'";
        Finding& out = ctx.report(e.loc, what +
                                             " makes the host wait for the GPU on every loop iteration: "
                                             "the GPU idles while the host queues the next launches; "
                                             "accumulate on the GPU and read once, or read under an "
                                             "interval guard");
        ctx.note(out, f.scopes[size_t(loop)].loc, "loop starts here");
      }
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL302() { return std::make_unique<HostSyncInLoop>(); }

}  // namespace sl::rules
