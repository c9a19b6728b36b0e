// SL201 cross-stream-free-without-record-stream: see rule.md.
#include <algorithm>
#include <set>

#include "rules/ClassProtocol.h"
#include "rules/EventIndex.h"
#include "rules/Rule.h"
#include "rules/RuleHelpers.h"
#include "rules/StashedState.h"

namespace sl::rules {
namespace {

using model::EventKind;

class CrossStreamFree : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions)
      for (size_t u = 0; u < f.events.size(); ++u) {
        const auto& use = f.events[u];
        if (use.kind == EventKind::RecordStream && ctx.module().lang == model::Lang::Python) noOpRecord(ctx, f, u);
        if (use.kind == EventKind::RecordStream) continue;
        // A use on a side stream of what another stream allocated, or (Python) a use on the
        // current stream of what a side-stream region produced.
        if (!use.stream.isSide() && ctx.module().lang != model::Lang::Python) continue;
        for (const auto& v : use.reads) checkValue(ctx, f, v, u);
      }
    // One hazard, one finding: a stash whose early drop is reported is not reported again at
    // its use across methods (the drop is where the fix goes, and the stash is a container,
    // not a tensor to record).
    std::set<std::string> stashRoots = stashes(ctx);
    acrossMethods(ctx, stashRoots);
  }

 private:
  // A stash on `self` keeps a tensor another stream still uses, and an entry is deleted with
  // nothing ordering the allocating stream after that use (rules/StashedState.h).
  static std::set<std::string> stashes(RuleContext& ctx) {
    std::set<std::string> roots;
    for (const auto& r : earlyStashReleases(ctx.module())) {
      const std::string& v = r.stash->value;
      roots.insert(r.stash->root);
      Finding& out = ctx.report(
          r.releaseAt, "this drops an entry of '" + r.stash->root + "', which holds '" + v + "' (allocated on " +
                           r.allocated.describe() + (r.handedOut ? " in " : ", used on " + r.used.describe() + " in ") +
                           methodName(*r.storer) + (r.handedOut ? " for " + r.used.describe() : "") +
                           "), with no wait of " + r.allocated.describe() + " for " + r.used.describe() +
                           " before it: the allocator can hand its memory to new work on " + r.allocated.describe() +
                           " while " + r.used.describe() + " still uses it; make " + r.allocated.describe() +
                           " wait on an event recorded after the use (wait_event) before dropping the entry, or call " +
                           v + ".record_stream(...) for " + r.used.describe() + " when it is stored");
      out.properties["confidence"] = "medium";
      ctx.note(out, r.stash->loc, "'" + v + "' stored in '" + r.stash->root + "' here");
      ctx.note(out, r.useAt, r.handedOut ? "allocated on " + r.allocated.describe() + " here and handed to " +
                                               r.used.describe() + " (returned, or joined into it by the class)"
                                         : "used on " + r.used.describe() + " here");
    }
    return roots;
  }

  // Allocated on a side stream in one method of a class (again on every call), used on another
  // stream in another method, and neither recorded for that stream anywhere in the class nor
  // protected by the side stream waiting before it allocates again (rules/ClassProtocol.h): the
  // prefetcher whose next() hands the caller a batch without record_stream.
  static void acrossMethods(RuleContext& ctx, const std::set<std::string>& stashRoots) {
    std::set<std::pair<uint32_t, std::string>> reported;
    for (const auto& p : unrecordedStateUses(ctx.module())) {
      if (stashRoots.count(p.root)) continue;
      if (!reported.insert({p.readAt.line, p.root}).second) continue;
      Finding& out = ctx.report(
          p.readAt, "'" + p.root + "' is allocated on " + p.producer.describe() + " in " + methodName(*p.writer) +
                        " and used here on " + p.consumer.describe() + " in " + methodName(*p.reader) +
                        " without record_stream: once its reference is dropped (the next " + methodName(*p.writer) +
                        " replaces it), the allocator can hand its memory to new work on " + p.producer.describe() +
                        " while " + p.consumer.describe() + " still uses it; call " + p.root +
                        ".record_stream(torch.cuda.current_stream()) where it is handed over");
      out.properties["confidence"] = "medium";
      ctx.note(out, p.writeAt, "allocated on " + p.producer.describe() + " here");
    }
  }

  // `t = src.to(dev, non_blocking=True); t.record_stream(torch.cuda.current_stream())`: the
  // record names the stream `t` was just allocated on, which the allocator already ties it to,
  // so it protects nothing. Inside a side-stream region (or a callee run in one: the prefetch
  // shape) current_stream() is the side stream itself, and the stream that will read `t`
  // after the region is never recorded (diffusers group offloading, fixed by recording the
  // stream captured before the region).
  static void noOpRecord(RuleContext& ctx, const model::Function& f, size_t r) {
    const auto& rec = f.events[r];
    // An unresolved stream is compared by the expression written (`with stream(s)` and
    // `record_stream(s)` for a parameter `s`); an unnamed one matches nothing.
    if (rec.value.empty() || (rec.other.kind == model::StreamKind::Unknown && rec.other.name.empty())) return;
    long p = producerOf(f, rec.value, r);
    if (p < 0) return;
    // `.to()`/`.cuda()` lower to an allocation followed by the copy into it, at one location.
    size_t a = size_t(p);
    if (f.events[a].kind == EventKind::Copy && a > 0 && f.events[a - 1].kind == EventKind::Alloc &&
        f.events[a - 1].value == rec.value && f.events[a - 1].loc.line == f.events[a].loc.line)
      --a;
    const auto& alloc = f.events[a];
    if (alloc.kind != EventKind::Alloc || !sameStream(alloc.stream, rec.other)) return;
    bool inRegion = model::enclosingSideRegion(f, rec.scope) >= 0;
    Finding& out = ctx.report(
        rec.loc, "'" + rec.value + "' was allocated on " + alloc.stream.describe() + " and record_stream names " +
                     (inRegion ? "that same stream (inside the region, current_stream() is the region's stream)"
                               : "that same stream (called inside a side-stream region, current_stream() is the "
                                 "region's stream)") +
                     ": the record protects nothing, and the stream that reads it next is not recorded; "
                     "take torch.cuda.current_stream() before the region and record that stream");
    // `.to(x)` of a value already on the device returns it unchanged (no new block, and the
    // record may then matter); but a line that copies and then records is a transfer.
    out.properties["confidence"] = "medium";
    ctx.note(out, alloc.loc, "allocated here");
  }

  // `v` is new storage made by `e`: an allocation, or (Python) the result of GPU work bound to
  // a plain local (`out = self.mlp(x)`, `y = x @ w`; not an in-place `x.mul_()` nor a write into
  // a part of something): the caching allocator takes it from the pool of the stream `e` runs on.
  // On the current stream only an arithmetic operator's result counts (`y = a * b`, C++
  // `at::operator*`): an operator never returns a view, where a method's result may be one
  // (`x.view(...)`, `x.narrow(...)` share x's storage, which x keeps alive).
  static bool allocates(const model::Event& e, const std::string& v) {
    if (e.kind == EventKind::Alloc) return true;
    if (e.kind != EventKind::Work || v.find_first_of(".[") != std::string::npos) return false;
    const bool operatorResult = e.api == "operator" || e.api.starts_with("at::operator");
    if (!e.stream.isSide() && !(operatorResult && e.stream.kind == model::StreamKind::Current)) return false;
    if (e.api.empty() || e.api.back() == '_' || e.api == "augmented-assignment" || e.api == "setitem") return false;
    return std::find(e.writes.begin(), e.writes.end(), v) != e.writes.end() &&
           std::find(e.reads.begin(), e.reads.end(), v) == e.reads.end();
  }

  static bool writesInPlace(const model::Event& e, const std::string& v) {
    return std::find(e.writes.begin(), e.writes.end(), v) != e.writes.end() &&
           std::find(e.reads.begin(), e.reads.end(), v) != e.reads.end();
  }

  // C++: LibTorch tensors go through the caching allocator's recordStream; raw device memory
  // (cudaMallocAsync & co) has no such hook, so the freeing stream must wait for the side one.
  static std::string fixHint(bool cpp, const std::string& v, const model::Event& alloc, const model::StreamRef& side) {
    std::string s = side.name.empty() ? "<side stream>" : side.name;
    // record_stream names the stream that uses the tensor (here `side`, the use's stream).
    if (!cpp) {
      std::string user = side.kind == model::StreamKind::Current || side.kind == model::StreamKind::Default
                             ? "torch.cuda.current_stream()"
                             : side.name.empty() ? "<side stream>" : side.name;
      return "call " + v + ".record_stream(" + user + ") after the use";
    }
    bool raw = alloc.api.rfind("cu", 0) == 0;
    std::string wait = "make the freeing stream wait for " + s + " first: " + waitHint(model::Lang::Cpp, alloc.stream, side);
    if (raw) return wait;
    return "call c10::cuda::CUDACachingAllocator::recordStream(" + v + ".storage().data_ptr(), " + s +
           ") after the use, or " + wait;
  }

  // `self.side.wait_stream(current)` before each allocation on `self.side`, on every path to it
  // and in the same loop iteration: the block this call frees goes back to that stream's pool,
  // and the next allocation there comes after a fork that waits for everything the current
  // stream queued, the use included (FSDP's all-gather stream; object state follows the same
  // policy, rules/ClassProtocol.h). Only for a stream the object keeps for itself (`self.`: one
  // from a shared cache may serve code that allocates there without the fork), and only when
  // every method of the class that allocates on it forks it first that way.
  static bool forkedBeforeAlloc(const model::Module& m, const model::Function& f, const model::StreamRef& allocStream,
                                const model::StreamRef& user) {
    if (!allocStream.name.starts_with("self.")) return false;
    const std::string cls = f.name.substr(0, f.name.rfind('.') + 1);
    if (cls.empty()) return false;
    for (const auto& g : m.functions) {
      if (!g.name.starts_with(cls) || g.name.find('.', cls.size()) != std::string::npos) continue;
      for (size_t a = 0; a < g.events.size(); ++a) {
        const auto& e = g.events[a];
        if (!sameStream(e.stream, allocStream) || !(e.kind == EventKind::Alloc || e.kind == EventKind::Work)) continue;
        if (e.kind == EventKind::Work && e.writes.empty()) continue;
        if (!forkedBefore(g, a, allocStream, user)) return false;
      }
    }
    return true;
  }
  static bool forkedBefore(const model::Function& g, size_t alloc, const model::StreamRef& allocStream,
                           const model::StreamRef& user) {
    const int loop = model::enclosingScope(g, g.events[alloc].scope, model::ScopeKind::Loop);
    for (size_t k = 0; k < alloc; ++k) {
      const auto& e = g.events[k];
      if (e.kind == EventKind::Wait && sameStream(e.stream, allocStream) && sameStream(e.other, user) &&
          model::dominates(g, k, alloc) && model::enclosingScope(g, e.scope, model::ScopeKind::Loop) == loop)
        return true;
    }
    return false;
  }

  // Where `v`, used at `u`, is next freed in this function (a `del`, a reassignment, `x.grad =
  // None`) on a path from the use; events.size() when it is not.
  static size_t freedAfter(const model::Function& f, const std::string& v, size_t u) {
    size_t end = f.events.size();
    auto dies = [&](size_t k) {
      if (!model::mayFollow(f, u, k)) return false;
      end = k;
      return true;
    };
    if (const EventIndex* ix = eventIndex(f)) {
      if (auto frees = ix->frees.find(v); frees != ix->frees.end()) anyBetween(frees->second, u, f.events.size(), dies);
    } else {
      for (size_t k = u + 1; k < f.events.size(); ++k)
        if (f.events[k].kind == EventKind::Free && f.events[k].value == v && dies(k)) break;
    }
    return end;
  }

  static bool recorded(const model::Function& f, const std::string& v) {
    if (const EventIndex* ix = eventIndex(f)) return ix->recorded.count(v) > 0;
    return std::any_of(f.events.begin(), f.events.end(),
                       [&](const model::Event& e) { return e.kind == EventKind::RecordStream && e.value == v; });
  }

  // A tensor autograd or a module call handed over (a hook's `p.grad`, a forward's input: made
  // on the caller's current stream), read on a side stream and then dropped here (`p.grad =
  // None`, `del x`) with no record_stream or wait: the allocator gives its block back to the
  // current stream's pool while the side stream still reads it (torchao's CPU offload frees the
  // gradient after its D2H copy is queued). Medium: the caller may still hold a reference.
  static void handedOverThenFreed(RuleContext& ctx, const model::Function& f, const std::string& v, size_t u) {
    const auto& side = f.events[u].stream;
    if (!side.isSide() || parameterRoot(f, v).empty() || recorded(f, v)) return;
    const size_t end = freedAfter(f, v, u);
    if (end == f.events.size() || orderedBetween(f, u, end, model::StreamRef::current(), side)) return;
    // Any function's arguments come from its callers; what decides is that the drop frees the
    // storage: an object's own attribute set to None (`p.grad = None`: a gradient's only owner)
    // does, and so does `del x` in code autograd or a module call hands its inputs to, whose
    // caller keeps no reference (a hook's, a forward's).
    if (!handedOverInputs(f) && f.events[end].api != "drop") return;
    Finding& out = ctx.report(
        f.events[end].loc, "'" + v + "' was produced on the caller's current stream and used on " + side.describe() +
                               "; it is dropped here without record_stream or a wait: the allocator can hand its "
                               "memory to new work while " + side.describe() + " still uses it; call " + v +
                               ".record_stream(" + (side.name.empty() ? std::string("<side stream>") : side.name) +
                               ") before dropping it");
    out.properties["confidence"] = "medium";
    ctx.note(out, f.loc, "'" + parameterRoot(f, v) + "' is an argument of " + methodName(f) +
                             (f.hot.empty() ? std::string() : " (" + f.hot + ")") +
                             ": what it holds was produced on the caller's current stream");
    ctx.note(out, f.events[u].loc, "used on " + side.describe() + " here");
  }

  static void checkValue(RuleContext& ctx, const model::Function& f, const std::string& v, size_t u) {
    long p = producerOf(f, v, u);
    // The storage's maker, past the work that wrote into it in place (`all_gather_into_tensor(
    // full, shard)`, `out.copy_(x)`: it reads and writes `full`) back to its allocation.
    while (p >= 0 && !allocates(f.events[size_t(p)], v) && writesInPlace(f.events[size_t(p)], v)) {
      const long earlier = producerOf(f, v, size_t(p));
      if (earlier < 0 || !allocates(f.events[size_t(earlier)], v)) break;
      p = earlier;
    }
    if (p < 0 && ctx.module().lang == model::Lang::Python) handedOverThenFreed(ctx, f, v, u);
    if (p < 0) return;
    const auto& alloc = f.events[size_t(p)];
    const auto& side = f.events[u].stream;
    if (!allocates(alloc, v) || sameStream(alloc.stream, side)) return;
    // The reverse direction (made in a side region, used on the current stream) is the
    // prefetch/overlap shape: only for a stream the code names, not one it was handed.
    if (!side.isSide() && alloc.stream.kind != model::StreamKind::Side) return;
    if (recorded(f, v)) return;
    // Where the tensor dies: an explicit free after the use, else the function's end for a
    // plain local that does not escape.
    const size_t end = freedAfter(f, v, u);
    bool escapes = v.find_first_of(".[") != std::string::npos || v.find("->") != std::string::npos ||
                   f.name == "<module>" ||
                   std::find(f.returned.begin(), f.returned.end(), v) != f.returned.end() ||
                   std::find(f.escaped.begin(), f.escaped.end(), v) != f.escaped.end();
    // C++ lifetimes are explicit (destructors at the closing brace, cudaFree): no Free event
    // there means the memory outlives the call.
    bool cpp = ctx.module().lang == model::Lang::Cpp;
    if (end == f.events.size() && (escapes || cpp)) return;
    if (orderedBetween(f, u, end, alloc.stream, side) || forkedBeforeAlloc(ctx.module(), f, alloc.stream, side)) return;
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
