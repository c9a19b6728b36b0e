// SL301 host-sync-in-stream-region: see rule.md.
#include <set>

#include "rules/Rule.h"

namespace sl::rules {
namespace {

using model::EventKind;

class HostSyncInStreamRegion : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions) {
      std::set<uint32_t> lines;  // one finding per line
      for (const auto& e : f.events) {
        int region = model::enclosingSideRegion(f, e.scope);
        if (region < 0) continue;
        const model::Event* sync = e.kind == EventKind::HostSync ? &e : nullptr;
        const std::string* syncPath = nullptr;  // the callee's file, when it is another
        if (e.kind == EventKind::Call)
          if (auto* s = ctx.summary().of(e.callee)) sync = s->sync, syncPath = s->syncPath;
        if (!sync || !lines.insert(e.loc.line).second) continue;
        const auto& scope = f.scopes[size_t(region)];
        std::string what = sync->api.empty() ? "this call" : "'" + sync->api + "'";
        Finding& out = ctx.report(
            e.loc, what + " makes the host wait for the GPU inside a region on " + scope.stream.describe() +
                       ": nothing more is queued on any stream meanwhile, so the region cannot overlap; "
                       "keep the check on the GPU or move it after the region is joined");
        ctx.note(out, scope.loc, "side-stream region starts here");
        if (sync != &e) ctx.note(out, syncPath, sync->loc, "the host waits here, in the called function");
      }
    }
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL301() { return std::make_unique<HostSyncInStreamRegion>(); }

}  // namespace sl::rules
