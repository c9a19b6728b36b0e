// SL501 host-timer-without-sync: see rule.md.
#include "rules/Rule.h"

namespace sl::rules {
namespace {

using model::EventKind;

class HostTimerWithoutSync : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions)
      for (size_t close = 0; close < f.events.size(); ++close) {
        if (f.events[close].kind != EventKind::Clock) continue;
        long open = -1;
        for (size_t i = close; i-- > 0;)
          if (f.events[i].kind == EventKind::Clock) { open = long(i); break; }
        // An interval starts at a read that is kept (`t0 = time.time()`); a read used on the
        // spot (`f"{int(time.time())}"`) opens nothing. A named read that starts a loop body
        // whose loop does not hold the previous read opens the loop's interval, it closes none.
        if (open < 0 || f.events[size_t(open)].value.empty()) continue;
        int loop = model::enclosingScope(f, f.events[close].scope, model::ScopeKind::Loop);
        if (!f.events[close].value.empty() && loop >= 0 && !model::scopeWithin(f, f.events[size_t(open)].scope, loop))
          continue;
        // 1. Some GPU work was issued between the two clock reads, and
        // 2. nothing after it, on its path, made the host wait for it before the close.
        // (Walking backwards so the note names the work closest to the clock read.)
        for (size_t w = close - 1; w > size_t(open); --w)
          if (isWork(ctx, f.events[w]) && !drained(ctx, f, w, close)) {
            Finding& out = ctx.report(
                f.events[close].loc,
                "host clock read closes an interval around GPU work without synchronizing: CUDA "
                "launches return before the GPU finishes, so this measures launch overhead; " +
                    std::string(ctx.module().lang == model::Lang::Cpp
                                    ? "call cudaStreamSynchronize(stream) or cudaDeviceSynchronize() (or time "
                                      "with cudaEventRecord + cudaEventElapsedTime) before reading the clock"
                                    : "call torch.cuda.synchronize() (or time with CUDA events) before "
                                      "reading the clock"));
            ctx.note(out, f.events[size_t(open)].loc, "interval starts here");
            ctx.note(out, f.events[w].loc, "GPU work issued here is still running when the clock is read");
            // As sure as the GPU work is GPU work.
            out.properties["confidence"] = model::confidenceName(f.events[w].confidence);
            break;
          }
      }
  }

 private:
  static const model::FunctionSummary* callee(RuleContext& ctx, const model::Event& e) {
    return e.kind == EventKind::Call ? ctx.summary().of(e.callee) : nullptr;
  }
  static bool syncs(RuleContext& ctx, const model::Event& e) {
    auto* c = callee(ctx, e);
    return e.kind == EventKind::HostSync || (c && c->sync);
  }
  static bool isWork(RuleContext& ctx, const model::Event& e) {
    auto* c = callee(ctx, e);
    if (c) return c->gpuWork && !c->sync;  // a callee that syncs drains its own work
    if (e.assumed) return false;  // a call we know nothing of may queue nothing
    return e.kind == EventKind::Work || e.kind == EventKind::Alloc || e.kind == EventKind::Copy ||
           e.kind == EventKind::Backward;
  }
  // A sync after `w` runs after w whenever w ran if its scope encloses w's (the same branch or
  // loop body, or an outer one), or sits in loops/regions nested there (loops assumed to run).
  // A sync whose scope also holds the clock read (`if timing: synchronize(); t1 = time()`)
  // runs whenever that read does, after the work: the interval is synced on every path that
  // reads the clock.
  static bool drained(RuleContext& ctx, const model::Function& f, size_t w, size_t close) {
    for (size_t s = w + 1; s < close; ++s)
      if (syncs(ctx, f.events[s]) && (reaches(f, f.events[s].scope, f.events[w].scope) ||
                                      model::scopeWithin(f, f.events[close].scope, f.events[s].scope)))
        return true;
    return false;
  }
  // A sync under `if isinstance(out, torch.Tensor):` counts as well: the path that skips it
  // has no GPU result to wait for (`if isinstance(out, torch.Tensor): out = out.cpu()`).
  static bool reaches(const model::Function& f, int from, int to) {
    if (model::scopeWithin(f, to, from)) return true;
    for (int s = from; s >= 0; s = f.scopes[size_t(s)].parent) {
      if (model::scopeWithin(f, to, s)) return true;
      const auto& sc = f.scopes[size_t(s)];
      if (sc.kind != model::ScopeKind::Loop && sc.kind != model::ScopeKind::StreamRegion && !sc.onlyIfTensor)
        return false;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL501() { return std::make_unique<HostTimerWithoutSync>(); }

}  // namespace sl::rules
