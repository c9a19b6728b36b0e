// SL303 device-allocation-in-side-stream: see rule.md.
#include "rules/Rule.h"

namespace sl::rules {
namespace {

class DeviceAllocationInSideStream : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions)
      for (const auto& e : f.events) {
        if (e.kind != model::EventKind::Alloc) continue;
        int region = model::enclosingSideRegion(f, e.scope);
        if (region < 0) continue;
        const auto& scope = f.scopes[size_t(region)];
        Finding& out = ctx.report(
            e.loc, "CUDA allocation inside a region on " + scope.stream.describe() +
                       ": the caching allocator opens a separate pool for this stream (reserved "
                       "memory can double) and a cudaMalloc here synchronizes the device; allocate "
                       "before the region and reuse the buffer");
        ctx.note(out, scope.loc, "side-stream region starts here");
      }
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL303() { return std::make_unique<DeviceAllocationInSideStream>(); }

}  // namespace sl::rules
