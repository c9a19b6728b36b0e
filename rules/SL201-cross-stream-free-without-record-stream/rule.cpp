// SL201 cross-stream-free-without-record-stream: see rule.md.
#include <algorithm>

#include "rules/Rule.h"
#include "rules/RuleHelpers.h"

namespace sl::rules {
namespace {

using model::EventKind;

class CrossStreamFree : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions)
      for (size_t u = 0; u < f.events.size(); ++u) {
        const auto& use = f.events[u];
        if (!use.stream.isSide() || use.kind == EventKind::RecordStream) continue;
        for (const auto& v : use.reads) checkValue(ctx, f, v, u);
      }
  }

 private:
  // C++: LibTorch tensors go through the caching allocator's recordStream; raw device memory
  // (cudaMallocAsync & co) has no such hook, so the freeing stream must wait for the side one.
  static std::string fixHint(bool cpp, const std::string& v, const model::Event& alloc, const model::StreamRef& side) {
    std::string s = side.name.empty() ? "<side stream>" : side.name;
    if (!cpp) return "call " + v + ".record_stream(<side stream>) after the use";
    bool raw = alloc.api.rfind("cu", 0) == 0;
    std::string wait = "make the freeing stream wait for " + s + " first: " + waitHint(model::Lang::Cpp, alloc.stream, side);
    if (raw) return wait;
    return "call c10::cuda::CUDACachingAllocator::recordStream(" + v + ".storage().data_ptr(), " + s +
           ") after the use, or " + wait;
  }

  static void checkValue(RuleContext& ctx, const model::Function& f, const std::string& v, size_t u) {
    long p = producerOf(f, v, u);
    if (p < 0) return;
    const auto& alloc = f.events[size_t(p)];
    const auto& side = f.events[u].stream;
    if (alloc.kind != EventKind::Alloc || sameStream(alloc.stream, side)) return;
    for (const auto& e : f.events)
      if (e.kind == EventKind::RecordStream && e.value == v) return;
    // Where the tensor dies: an explicit free after the use, else the function's end for a
    // plain local that does not escape.
    size_t end = f.events.size();
    for (size_t k = u + 1; k < f.events.size(); ++k)
      if (f.events[k].kind == EventKind::Free && f.events[k].value == v && model::mayFollow(f, u, k)) { end = k; break; }
    bool escapes = v.find_first_of(".[") != std::string::npos || v.find("->") != std::string::npos ||
                   f.name == "<module>" ||
                   std::find(f.returned.begin(), f.returned.end(), v) != f.returned.end() ||
                   std::find(f.escaped.begin(), f.escaped.end(), v) != f.escaped.end();
    // C++ lifetimes are explicit (destructors at the closing brace, cudaFree): no Free event
    // there means the memory outlives the call.
    bool cpp = ctx.module().lang == model::Lang::Cpp;
    if (end == f.events.size() && (escapes || cpp)) return;
    if (orderedBetween(f, u, end, alloc.stream, side)) return;
    Loc at = end < f.events.size() ? f.events[end].loc : f.events[u].loc;
    Finding& out = ctx.report(
        at, "'" + v + "' was allocated on " + alloc.stream.describe() + " and used on " + side.describe() +
                (end < f.events.size() ? "; it is freed here" : "; it is freed when the function returns") +
                (cpp ? " without recordStream or a wait" : " without record_stream or a wait") +
                ": the allocator can hand its memory to new work while " + side.describe() +
                " still uses it; " + fixHint(cpp, v, alloc, side));
    ctx.note(out, alloc.loc, "allocated here");
    ctx.note(out, f.events[u].loc, "used on " + side.describe() + " here");
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL201() { return std::make_unique<CrossStreamFree>(); }

}  // namespace sl::rules
