// SL102 side-stream-result-without-join: see rule.md.
#include <algorithm>
#include <set>

#include "rules/ClassProtocol.h"
#include "rules/EventIndex.h"
#include "rules/EventUse.h"
#include "rules/ForkJoin.h"
#include "rules/Rule.h"
#include "rules/RuleHelpers.h"

namespace sl::rules {
namespace {

using model::EventKind;

class SideStreamResultWithoutJoin : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    std::set<std::pair<uint32_t, std::string>> reported;  // one finding per line and value
    std::set<std::pair<const model::Function*, std::string>> joinAsked;  // streams a finding asks to join
    for (const auto& f : ctx.module().functions) {
      for (size_t i = 0; i < f.events.size(); ++i) {
        const auto& e = f.events[i];
        for (const auto& v : e.reads)
          if (long p = unjoined(ctx, f, v, i, e.stream); p >= 0 && reported.insert({e.loc.line, v}).second) {
            const auto& prod = f.events[size_t(p)];
            joinAsked.insert({&f, prod.stream.name});
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
      for (size_t k = 0; k < f.returned.size(); ++k) {
        const std::string& v = f.returned[k];
        const long p = seen.insert(v).second ? unjoined(ctx, f, v, f.events.size(), model::StreamRef::current()) : -1;
        if (p < 0) continue;
        const auto& prod = f.events[size_t(p)];
        // Reported where the join goes: at the end of the side-stream region that wrote it (its
        // last event), else at the write; the write and the `return`/`yield` that hands it out
        // are notes.
        const bool at = k < f.returnedAt.size() && f.returnedAt[k].known();
        const Loc end = regionEnd(f, prod);
        // A result only guessed to be a tensor (a launch's handle: the finding is as sure as the
        // events where it is reported) leaves the stream's join to the fork's own finding.
        if (!guessedAt(ctx.module(), end)) joinAsked.insert({&f, prod.stream.name});
        Finding& out = ctx.report(end, "'" + v + "' is written on " + prod.stream.describe() +
                                           " and handed to the caller (returned or yielded) without the caller's stream "
                                           "waiting for it; call " + joinHint(ctx, model::StreamRef::current(), prod.stream) +
                                           " after the region");
        if (end != prod.loc) ctx.note(out, prod.loc, "'" + v + "' written on " + prod.stream.describe() + " here");
        if (at) ctx.note(out, f.returnedAt[k], "'" + v + "' handed to the caller here");
        // The caller handed the stream in (`def forward(inputs, stream)`): it holds the stream and
        // usually joins it where it uses the result (lmdeploy's model_forward).
        // Unless the function joins a stream it forked itself: then it keeps the protocol.
        if (streamIsParameter(f, prod.stream) && !keepsForkProtocol(f, prod.stream)) out.properties["confidence"] = "low";
      }
      argumentsWritten(ctx, f, reported, joinAsked);
    }
    acrossMethods(ctx, reported, joinAsked);
    // A record after a side stream's work that nothing consumes is where that stream's join
    // went missing: reported there, and not again as a fork without a join.
    for (const auto& u : unusedRecords(ctx.module())) {
      if (!u.afterWork || !joinAsked.insert({u.fn, u.record->stream.name}).second) continue;
      const model::Event& r = *u.record;
      const bool torch = r.api.find("::") != std::string::npos;
      const std::string wait = torch ? r.value + ".block(consumer)" : "cudaStreamWaitEvent(consumer, " + r.value + ")";
      Finding& out = ctx.report(r.loc, "'" + r.value + "' is recorded on " + r.stream.describe() +
                                           " after its work, but nothing in this file waits on it, synchronizes it "
                                           "or hands it on: whatever consumes that work's results is never made to "
                                           "wait and can read them before they are written; call " + wait +
                                           " (or synchronize it) before the results are used");
      out.properties["confidence"] = "medium";
      ctx.note(out, u.work->loc, "the work it marks as done is queued on " + r.stream.describe() + " here");
    }
    forksWithoutJoin(ctx, joinAsked);
  }

 private:
  // A tensor the caller passed in (`dst`, `bufs[i]`) written in place on a side stream, and the
  // function ends with nothing making the current stream wait for that write: the caller sees
  // the argument as ready on its own stream. Not when the stream is the caller's to join (a
  // parameter), when the function records an event on it after the write (the hand-off), nor
  // when the module joins the stream in a function that has no region of its own on it (the
  // join lives in a `wait()`/`synchronize()` method of the protocol). Medium confidence.
  static void argumentsWritten(RuleContext& ctx, const model::Function& f,
                               std::set<std::pair<uint32_t, std::string>>& reported,
                               std::set<std::pair<const model::Function*, std::string>>& joinAsked) {
    std::set<std::string> seen;
    for (size_t i = 0; i < f.events.size(); ++i) {
      const auto& e = f.events[i];
      if (!e.stream.isSide() || e.stream.name.empty() || (e.kind != EventKind::Work && e.kind != EventKind::Copy)) continue;
      for (const auto& v : e.writes) {
        const std::string root = parameterRoot(f, v);
        if (root.empty() || !seen.insert(root).second) continue;
        if (std::find(f.returned.begin(), f.returned.end(), v) != f.returned.end()) continue;  // reported above
        if (usedLater(f, i, v)) continue;  // that use is judged above
        if (unjoined(ctx, f, v, f.events.size(), model::StreamRef::current()) < 0) continue;
        if (streamIsParameter(f, e.stream) || recordedAfter(f, i, e.stream) || joinedElsewhere(ctx.module(), e.stream) ||
            finishedElsewhere(ctx.module(), f, e.stream))
          continue;
        // C/C++: a stream taken from a context object the caller holds (`ctx->stream()`) is an
        // asynchronous API's contract (the caller synchronizes that context); only a stream the
        // function creates itself is known to be out of the caller's reach.
        if (ctx.module().lang == model::Lang::Cpp && !createdHere(f, e.stream)) continue;
        if (!reported.insert({e.loc.line, v}).second) continue;
        joinAsked.insert({&f, e.stream.name});
        Finding& out = ctx.report(e.loc, "'" + v + "' (an argument of " + methodName(f) + ") is written on " +
                                             e.stream.describe() + " and the function returns without the caller's "
                                             "stream waiting for it: the caller can read it before it is written; call " +
                                             joinHint(ctx, model::StreamRef::current(), e.stream) +
                                             " before returning");
        out.properties["confidence"] = "medium";
        ctx.note(out, f.loc, "'" + root + "' is handed in by the caller, which uses it on its current stream");
      }
    }
  }

  // A function that forks a side stream from the stream it works on and gives it work, then
  // returns with nothing joining it back (rules/ForkJoin.h). Reported where the join goes, at
  // the return; medium confidence (low when the stream is itself an argument forked from the
  // current stream: the caller holds it and may join it). Not again for a stream a finding
  // above already asks to join.
  static void forksWithoutJoin(RuleContext& ctx,
                               const std::set<std::pair<const model::Function*, std::string>>& joinAsked) {
    for (const auto& u : unjoinedForks(ctx.module(), ctx.summary())) {
      if (joinAsked.count({u.fn, u.stream.name})) continue;
      Finding& out = ctx.report(
          u.exitAt, methodName(*u.fn) + " makes " + u.stream.describe() + " wait for " + u.from.describe() +
                    " and gives it work, but returns with nothing making " + u.from.describe() + " wait for it: the "
                    "caller runs on while that work still reads its tensors (which it may free or overwrite) and "
                    "before its results are written; call " + joinHint(ctx, u.from, u.stream) + " before returning");
      out.properties["confidence"] = u.streamIsParameter ? "low" : "medium";
      ctx.note(out, u.fork->loc, u.stream.describe() + " is forked from " + u.from.describe() + " here");
      ctx.note(out, u.lastWork->loc, "the last work given to " + u.stream.describe() + " is queued here");
    }
  }

  // The last event of the side-stream region holding `prod`, where the region's work ends and a
  // join would follow; `prod`'s own location when it is in no region (a launch on a stream).
  static Loc regionEnd(const model::Function& f, const model::Event& prod) {
    const int r = model::enclosingSideRegion(f, prod.scope);
    if (r < 0) return prod.loc;
    Loc last = prod.loc;
    for (const auto& e : f.events)
      if (model::scopeWithin(f, e.scope, r) && last.line < e.loc.line) last = e.loc;
    return last;
  }

  static bool usedLater(const model::Function& f, size_t from, const std::string& v) {
    for (size_t k = from + 1; k < f.events.size(); ++k)
      if (std::find(f.events[k].reads.begin(), f.events[k].reads.end(), v) != f.events[k].reads.end()) return true;
    return false;
  }

  static bool createdHere(const model::Function& f, const model::StreamRef& s) {
    return std::any_of(f.events.begin(), f.events.end(), [&](const model::Event& e) {
      return e.kind == EventKind::StreamCreate && e.value == s.name;
    });
  }

  static bool guessedAt(const model::Module& m, Loc loc) {
    const auto* here = eventsAt(m, loc);
    return here && std::any_of(here->begin(), here->end(),
                               [](const model::Event* e) { return e->confidence == model::Confidence::Low; });
  }

  static bool streamIsParameter(const model::Function& f, const model::StreamRef& s) {
    const std::string head = s.name.substr(0, s.name.find_first_of(".["));
    return std::find(f.params.begin(), f.params.end(), head) != f.params.end() && head != "self";
  }

  static bool recordedAfter(const model::Function& f, size_t from, const model::StreamRef& s) {
    for (size_t k = from + 1; k < f.events.size(); ++k)
      if (f.events[k].kind == EventKind::EventRecord && sameStream(f.events[k].stream, s)) return true;
    return false;
  }

  // Some function of the module makes another stream wait for `s` without a region on `s`
  // of its own before that wait: it joins work other functions queued.
  static bool joinedElsewhere(const model::Module& m, const model::StreamRef& s) {
    for (const auto& g : m.functions)
      for (const auto& w : g.events) {
        if (w.kind != EventKind::Wait || !sameStream(w.other, s)) continue;
        const bool ownRegion = std::any_of(g.scopes.begin(), g.scopes.end(), [&](const model::Scope& sc) {
          return sc.kind == model::ScopeKind::StreamRegion && sameStream(sc.stream, s) && sc.loc.line < w.loc.line;
        });
        if (!ownRegion) return true;
      }
    return false;
  }

  // Written on a side stream in one method of a class, used on the current stream in another
  // (a prefetcher's preload() and next()), and no method joins the two (rules/ClassProtocol.h).
  // Medium confidence: the value is used by GPU work on a side stream, and a caller outside the
  // class could still make its stream wait for the class's side stream.
  static void acrossMethods(RuleContext& ctx, std::set<std::pair<uint32_t, std::string>>& reported,
                            std::set<std::pair<const model::Function*, std::string>>& joinAsked) {
    for (const auto& p : unjoinedStateReads(ctx.module())) {
      joinAsked.insert({p.writer, p.producer.name});
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
    return waitHint(ctx.module().lang, consumer, side);
  }

  // `v`, used at `at` on stream `consumer`, was last written on a different side stream and
  // nothing in between makes the consumer wait for it.
  // The producer of `v` on a side stream that reaches event `at` (past the end: the function's
  // exit) with no join of that stream for `consumer` in between, or -1. Every producer that
  // can reach counts, not only the last: the arms of an `if` that write `v` on different streams
  // (a reduction on a side stream, or a fallback on the current one) each hand it on.
  static long unjoined(RuleContext& ctx, const model::Function& f, const std::string& v, size_t at,
                       const model::StreamRef& consumer) {
    if (at < f.events.size() && model::enclosingSideRegion(f, f.events[at].scope) >= 0) return -1;  // SL101's case
    // Work launched on a named side stream is SL101's case too: one finding per missing wait.
    if (at < f.events.size() && f.events[at].stream.isSide() &&
        (f.events[at].kind == EventKind::Work || f.events[at].kind == EventKind::Copy))
      return -1;
    const long last = producerOf(f, v, at);
    if (last < 0) return -1;
    // The last producer, then the earlier writes of `v` itself (the index lists them).
    std::vector<size_t> candidates{size_t(last)};
    if (const EventIndex* ix = eventIndex(f); ix && f.events[size_t(last)].scope != 0)
      if (auto it = ix->producers.find(v); it != ix->producers.end())
        for (auto k = std::lower_bound(it->second.begin(), it->second.end(), uint32_t(last)); k != it->second.begin();)
          candidates.push_back(*--k);
    std::vector<size_t> later;  // producers after the one judged, that reach `at` too
    for (size_t i : candidates) {
      if (at < f.events.size() && !model::mayFollow(f, i, at)) continue;
      // A later write in this scope or one around it overwrites this one on every path.
      const bool overwritten = std::any_of(later.begin(), later.end(), [&](size_t q) {
        return model::scopeWithin(f, f.events[i].scope, f.events[q].scope) && model::mayFollow(f, i, q);
      });
      if (overwritten) break;
      later.push_back(i);
      const auto& prod = f.events[i];
      if (!prod.stream.isSide() || sameStream(prod.stream, consumer)) continue;
      if (!orderedBetween(f, i, at, consumer, prod.stream) && !calleeDrainsDevice(ctx, f, i, at)) return long(i);
    }
    return -1;
  }

  // A call in (from, to) whose callee synchronizes the whole device (`torch.cuda.synchronize()`
  // in a helper, found through the project's summaries): every stream's work is done after it.
  static bool calleeDrainsDevice(RuleContext& ctx, const model::Function& f, size_t from, size_t to) {
    for (size_t k = from + 1; k < to && k < f.events.size(); ++k) {
      if (f.events[k].kind != EventKind::Call) continue;
      const model::FunctionSummary* s = ctx.summary().of(f.events[k].callee);
      if (s && s->sync && s->sync->sync == model::SyncKind::Device) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL102() { return std::make_unique<SideStreamResultWithoutJoin>(); }

}  // namespace sl::rules
