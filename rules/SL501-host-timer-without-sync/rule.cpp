// SL501 host-timer-without-sync: see rule.md.
#include "rules/Rule.h"

namespace sl::rules {
namespace {

using model::EventKind;

class HostTimerWithoutSync : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions)
      for (size_t j = 0; j < f.events.size(); ++j)
        if (f.events[j].kind == EventKind::Clock) checkClose(ctx, f, j);
  }

 private:
  // Walks back from the closing clock read: a sync first means the interval is measured
  // correctly; GPU work and then the opening clock read means it is not.
  static void checkClose(RuleContext& ctx, const model::Function& f, size_t close) {
    const model::Event* lastWork = nullptr;
    for (size_t i = close; i-- > 0;) {
      const auto& e = f.events[i];
      const model::FunctionSummary* callee = e.kind == EventKind::Call ? ctx.summary().of(e.callee) : nullptr;
      bool syncs = (e.kind == EventKind::HostSync && model::dominates(f, i, close)) ||
                   (callee && callee->sync && model::dominates(f, i, close));
      if (syncs) return;
      bool work = e.kind == EventKind::Work || e.kind == EventKind::Alloc || e.kind == EventKind::Copy ||
                  e.kind == EventKind::Backward || (callee && callee->gpuWork);
      if (work && !lastWork) lastWork = &e;
      if (e.kind == EventKind::Clock) {
        if (!lastWork) return;
        Finding& out = ctx.report(
            f.events[close].loc,
            "host clock read closes an interval around GPU work without synchronizing: CUDA "
            "launches return before the GPU finishes, so this measures launch overhead; call "
            "torch.cuda.synchronize() (or time with CUDA events) before reading the clock");
        ctx.note(out, e.loc, "interval starts here");
        ctx.note(out, lastWork->loc, "GPU work issued here is still running when the clock is read");
        return;
      }
    }
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL501() { return std::make_unique<HostTimerWithoutSync>(); }

}  // namespace sl::rules
