// SL202 pinned-temporary-in-async-copy: see rule.md.
#include "rules/Rule.h"

namespace sl::rules {
namespace {

using model::EventKind;

class PinnedTemporaryInAsyncCopy : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions)
      for (size_t i = 0; i < f.events.size(); ++i) {
        const auto& c = f.events[i];
        if (c.kind != EventKind::Copy || !c.nonBlocking || c.dir != model::CopyDir::HostToDevice ||
            c.srcPinned != model::Tri::Yes)
          continue;
        if (c.srcTemporary) {
          ctx.report(c.loc, "non_blocking copy from a pinned temporary: the buffer dies at the end of "
                            "this statement while the DMA may still read it; keep the pinned buffer "
                            "alive until the copy completes");
          continue;
        }
        if (c.reads.empty()) continue;
        for (size_t k = i + 1; k < f.events.size(); ++k) {
          const auto& e = f.events[k];
          if (e.kind == EventKind::HostSync) break;
          if (e.kind == EventKind::Free && e.value == c.reads[0]) {
            Finding& out = ctx.report(e.loc, "pinned buffer '" + e.value +
                                                 "' is freed before its non_blocking copy is known to "
                                                 "have completed; synchronize (or wait on an event) first");
            ctx.note(out, c.loc, "non_blocking copy queued here");
            break;
          }
        }
      }
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL202() { return std::make_unique<PinnedTemporaryInAsyncCopy>(); }

}  // namespace sl::rules
