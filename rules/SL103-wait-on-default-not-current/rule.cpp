// SL103 wait-on-default-not-current: see rule.md.
#include "rules/Rule.h"

namespace sl::rules {
namespace {

using model::StreamKind;

class WaitOnDefaultNotCurrent : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions)
      for (const auto& e : f.events) {
        if (e.kind != model::EventKind::Wait) continue;
        bool waitsOnDefault = e.value.empty() && e.other.kind == StreamKind::Default;
        bool defaultWaits = e.streamExplicit && e.stream.kind == StreamKind::Default;
        if (!waitsOnDefault && !defaultWaits) continue;
        ctx.report(e.loc, std::string(waitsOnDefault ? "waits on the default stream"
                                                     : "makes the default stream wait") +
                              ", which is not the current stream when a caller switched streams: the "
                              "wait orders against the wrong queue; use the current stream");
      }
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL103() { return std::make_unique<WaitOnDefaultNotCurrent>(); }

}  // namespace sl::rules
