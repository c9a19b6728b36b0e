// SL304 pageable-async-copy: see rule.md.
#include "rules/Rule.h"

namespace sl::rules {
namespace {

class PageableAsyncCopy : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions)
      for (const auto& e : f.events)
        if (e.kind == model::EventKind::Copy && e.nonBlocking && e.dir == model::CopyDir::HostToDevice &&
            e.srcPinned == model::Tri::No)
          ctx.report(e.loc, ctx.module().lang == model::Lang::Cpp
                                ? "asynchronous copy from pageable host memory: the driver stages it through a "
                                  "pinned buffer on this thread, so the host blocks for the whole transfer; "
                                  "allocate the host buffer with cudaMallocHost / cudaHostAlloc (LibTorch: "
                                  "pin_memory()) or copy synchronously"
                                : "non_blocking copy from pageable host memory: the driver stages it through a "
                                  "pinned buffer on this thread, so the host blocks for the whole transfer; "
                                  "pin the source (pin_memory()) or drop non_blocking");
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL304() { return std::make_unique<PageableAsyncCopy>(); }

}  // namespace sl::rules
