// SL101 side-stream-use-without-wait: see rule.md.
#include "rules/Rule.h"
#include "rules/RuleHelpers.h"

namespace sl::rules {
namespace {

using model::EventKind;

class SideStreamUseWithoutWait : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions)
      for (size_t i = 0; i < f.events.size(); ++i) {
        const auto& e = f.events[i];
        if (e.kind != EventKind::Work && e.kind != EventKind::Copy) continue;
        // Work on a side stream: inside a side region, or launched on a named stream.
        if (!e.stream.isSide()) continue;
        for (const auto& v : e.reads) {
          long p = producerOf(f, v, i);
          if (p < 0) continue;
          const auto& prod = f.events[size_t(p)];
          if (sameStream(prod.stream, e.stream) || orderedBetween(f, size_t(p), i, e.stream, prod.stream) ||
              waitFollowsProducer(f, size_t(p), i, e.stream, prod.stream))
            continue;
          Finding& out = ctx.report(
              e.loc, "'" + v + "' is used on " + e.stream.describe() + " but was produced on " +
                         prod.stream.describe() + " with no wait in between: the side stream can read it "
                         "before it is written; call " +
                         waitHint(ctx.module().lang, e.stream, p < 0 ? model::StreamRef{} : f.events[size_t(p)].stream) +
                         " before this use");
          ctx.note(out, prod.loc, "'" + v + "' produced on " + prod.stream.describe() + " here");
          if (int r = model::enclosingSideRegion(f, e.scope); r >= 0)
            ctx.note(out, f.scopes[size_t(r)].loc, "side-stream region starts here");
          break;  // one finding per use site
        }
      }
  }

 private:
  // A wait by the user's stream that runs whenever the producer ran: after it, in a scope that
  // encloses the producer's (`if (sync) { cudaMemcpy(...); }` on the legacy stream, then
  // a blocking stream's implicit wait in the same branch), before the use.
  static bool waitFollowsProducer(const model::Function& f, size_t p, size_t use, const model::StreamRef& waiter,
                                  const model::StreamRef& producer) {
    for (size_t k = p + 1; k < use; ++k) {
      const auto& w = f.events[k];
      if (w.kind != EventKind::Wait || !sameStream(w.stream, waiter)) continue;
      if (w.value.empty() && w.other.kind != model::StreamKind::Unknown && !sameStream(w.other, producer)) continue;
      if (model::scopeWithin(f, f.events[p].scope, w.scope)) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL101() { return std::make_unique<SideStreamUseWithoutWait>(); }

}  // namespace sl::rules
