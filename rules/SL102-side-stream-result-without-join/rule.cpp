// SL102 side-stream-result-without-join: see rule.md.
#include <set>

#include "rules/ClassProtocol.h"
#include "rules/Rule.h"
#include "rules/RuleHelpers.h"

namespace sl::rules {
namespace {

using model::EventKind;

class SideStreamResultWithoutJoin : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    std::set<std::pair<uint32_t, std::string>> reported;  // one finding per line and value
    for (const auto& f : ctx.module().functions) {
      for (size_t i = 0; i < f.events.size(); ++i) {
        const auto& e = f.events[i];
        for (const auto& v : e.reads)
          if (unjoined(f, v, i, e.stream) && reported.insert({e.loc.line, v}).second) {
            const auto& prod = f.events[size_t(producerOf(f, v, i))];
            Finding& out = ctx.report(
                e.loc, "'" + v + "' was written on " + prod.stream.describe() + " and is used here on " +
                           e.stream.describe() + " without waiting for it: this can read it before the "
                           "side stream has written it; call " + joinHint(ctx, e.stream, prod.stream) +
                           (ctx.module().lang == model::Lang::Cpp ? " before this use" : " after the region"));
            ctx.note(out, prod.loc, "'" + v + "' written on " + prod.stream.describe() + " here");
            break;
          }
      }
      std::set<std::string> seen;
      for (const auto& v : f.returned)
        if (seen.insert(v).second && unjoined(f, v, f.events.size(), model::StreamRef::current())) {
          const auto& prod = f.events[size_t(producerOf(f, v, f.events.size()))];
          ctx.report(prod.loc, "'" + v + "' is written on " + prod.stream.describe() +
                                   " and returned without the caller's stream waiting for it; call " +
                                   joinHint(ctx, model::StreamRef::current(), prod.stream) + " before returning");
        }
    }
    acrossMethods(ctx, reported);
  }

 private:
  // Written on a side stream in one method of a class, used on the current stream in another
  // (a prefetcher's preload() and next()), and no method joins the two (rules/ClassProtocol.h).
  // Medium confidence: the value is used by GPU work on a side stream, and a caller outside the
  // class could still make its stream wait for the class's side stream.
  static void acrossMethods(RuleContext& ctx, std::set<std::pair<uint32_t, std::string>>& reported) {
    for (const auto& p : unjoinedStateReads(ctx.module())) {
      if (!reported.insert({p.readAt.line, p.root}).second) continue;
      Finding& out = ctx.report(
          p.readAt, "'" + p.root + "' is written on " + p.producer.describe() + " in " + methodName(*p.writer) +
                        " and used here on " + p.consumer.describe() + " in " + methodName(*p.reader) +
                        ", and no method of `" + p.cls + "` makes " + p.consumer.describe() + " wait for " +
                        p.producer.describe() +
                        (p.useWrites ? ": this can overwrite it while the side stream still uses it; call "
                                     : ": this can read it before the side stream has written it; call ") +
                        joinHint(ctx, p.consumer, p.producer) + " before this use");
      out.properties["confidence"] = "medium";
      ctx.note(out, p.writeAt, "'" + p.root + "' written on " + p.producer.describe() + " in " + methodName(*p.writer) + " here");
    }
  }

  static std::string joinHint(RuleContext& ctx, const model::StreamRef& consumer, const model::StreamRef& side) {
    if (ctx.module().lang != model::Lang::Cpp)
      return "torch.cuda.current_stream().wait_stream(" + side.name + ")";
    return waitHint(model::Lang::Cpp, consumer, side);
  }

  // `v`, used at `at` on stream `consumer`, was last written on a different side stream and
  // nothing in between makes the consumer wait for it.
  static bool unjoined(const model::Function& f, const std::string& v, size_t at, const model::StreamRef& consumer) {
    long p = producerOf(f, v, at);
    if (p < 0) return false;
    const auto& prod = f.events[size_t(p)];
    if (!prod.stream.isSide() || sameStream(prod.stream, consumer)) return false;
    if (at < f.events.size() && model::enclosingSideRegion(f, f.events[at].scope) >= 0) return false;  // SL101's case
    // Work launched on a named side stream is SL101's case too: one finding per missing wait.
    if (at < f.events.size() && f.events[at].stream.isSide() &&
        (f.events[at].kind == EventKind::Work || f.events[at].kind == EventKind::Copy))
      return false;
    return !orderedBetween(f, size_t(p), at, consumer, prod.stream);
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL102() { return std::make_unique<SideStreamResultWithoutJoin>(); }

}  // namespace sl::rules
