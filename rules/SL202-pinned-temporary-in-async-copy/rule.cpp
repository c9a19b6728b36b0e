// SL202 pinned-temporary-in-async-copy: see rule.md.
#include <vector>

#include "rules/Rule.h"

namespace sl::rules {
namespace {

using model::EventKind;

class PinnedTemporaryInAsyncCopy : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    // C++ spells it cudaMemcpyAsync / non_blocking=true: say "asynchronous" there.
    const char* nb = ctx.module().lang == model::Lang::Cpp ? "asynchronous" : "non_blocking";
    for (const auto& f : ctx.module().functions)
      for (size_t i = 0; i < f.events.size(); ++i) {
        const auto& c = f.events[i];
        if (c.kind != EventKind::Copy || !c.nonBlocking || c.dir != model::CopyDir::HostToDevice ||
            c.srcPinned != model::Tri::Yes)
          continue;
        // torch's caching host allocator records the copy's stream: freeing such a buffer
        // early is safe; writing into it before the copy completes is not.
        if (c.srcTemporary && !c.srcStreamTracked) {
          ctx.report(c.loc, std::string(nb) + " copy from a pinned temporary: the buffer dies at the end of "
                            "this statement while the DMA may still read it; keep the pinned buffer "
                            "alive until the copy completes");
          continue;
        }
        if (c.reads.empty()) continue;
        // After the copy, in order; inside a loop, wrapping around to the body's start (the
        // next iteration's writes come after this iteration's copy).
        int loop = model::enclosingScope(f, c.scope, model::ScopeKind::Loop);
        std::vector<size_t> after;
        for (size_t k = i + 1; k < f.events.size(); ++k) after.push_back(k);
        if (loop >= 0)
          for (size_t k = 0; k < i; ++k)
            if (model::scopeWithin(f, f.events[k].scope, loop)) after.push_back(k);
        for (size_t k : after) {
          const auto& e = f.events[k];
          if (e.kind == EventKind::HostSync) break;
          // A free ends the buffer's story: reported unless the allocator protects it.
          if (e.kind == EventKind::Free && e.value == c.reads[0] && c.srcStreamTracked) break;
          bool freed = e.kind == EventKind::Free;
          if ((freed || e.kind == EventKind::HostWrite) && e.value == c.reads[0]) {
            Finding& out = ctx.report(e.loc, "pinned buffer '" + e.value + (freed ? "' is freed" : "' is overwritten") +
                                                 " before its " + nb + " copy is known to have completed: "
                                                 "the GPU can receive the new contents; synchronize (or wait "
                                                 "on an event recorded after the copy) first");
            ctx.note(out, c.loc, std::string(nb) + " copy queued here");
            break;
          }
        }
      }
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL202() { return std::make_unique<PinnedTemporaryInAsyncCopy>(); }

}  // namespace sl::rules
