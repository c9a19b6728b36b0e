// SL103 wait-on-default-not-current: see rule.md.
#include "rules/Rule.h"
#include "rules/RuleHelpers.h"

namespace sl::rules {
namespace {

using model::StreamKind;

class WaitOnDefaultNotCurrent : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions) {
      // A function that itself enters a region on the default stream (`compute =
      // default_stream(); with stream(compute): ...`) uses it as its named work stream: its
      // waits on that stream order exactly the work it queued there, whatever the caller's
      // current stream (bench/precision: judged wrong).
      if (regionOnDefault(f)) continue;
      for (size_t i = 0; i < f.events.size(); ++i) {
        const auto& e = f.events[i];
        if (e.kind != model::EventKind::Wait) continue;
        bool waitsOnDefault = e.value.empty() && e.other.kind == StreamKind::Default;
        bool defaultWaits = e.streamExplicit && e.stream.kind == StreamKind::Default;
        if (!waitsOnDefault && !defaultWaits) continue;
        // Before a CUDA graph capture the wait is moot: entering torch.cuda.graph synchronizes
        // the whole device (bench/precision: these were judged wrong).
        if (capturesNext(f, i, e.stream)) continue;
        ctx.report(e.loc, std::string(waitsOnDefault ? "waits on the default stream"
                                                     : "makes the default stream wait") +
                              ", which is not the current stream when a caller switched streams: the "
                              "wait orders against the wrong queue; use the current stream");
      }
    }
  }

 private:
  static bool regionOnDefault(const model::Function& f) {
    for (const auto& sc : f.scopes)
      if (sc.kind == model::ScopeKind::StreamRegion && sc.stream.kind == StreamKind::Default) return true;
    return false;
  }

  // The capture's device-wide sync orders everything queued before it, so only work queued on
  // the waiting stream between the wait and the capture still needs the wait (a call on
  // another stream — `self.graphs = Graphs()` — does not).
  static bool capturesNext(const model::Function& f, size_t i, const model::StreamRef& waiter) {
    for (size_t k = i + 1; k < f.events.size(); ++k) {
      const auto& n = f.events[k];
      if (n.kind == model::EventKind::Wait && n.value == model::kDeviceWideWait) return true;
      if ((n.kind == model::EventKind::Work || n.kind == model::EventKind::Call) && sameStream(n.stream, waiter))
        return false;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL103() { return std::make_unique<WaitOnDefaultNotCurrent>(); }

}  // namespace sl::rules
