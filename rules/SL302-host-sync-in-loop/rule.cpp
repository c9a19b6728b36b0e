// SL302 host-sync-in-loop: see rule.md.
#include <set>

#include "rules/Rule.h"

namespace sl::rules {
namespace {

// GPU work in `loop` other than initialising memory allocated in that loop: a loop that only
// allocates one buffer per stream or device and clears it (cudaMalloc + cudaMemset) is set-up,
// not a hot path.
bool issuesGpuWork(const model::Function& f, int loop) {
  std::set<std::string> fresh;  // allocated in the loop so far
  for (const auto& e : f.events) {
    if (!model::scopeWithin(f, e.scope, loop)) continue;
    if ((e.kind == model::EventKind::Alloc || (e.kind == model::EventKind::HostSync && e.sync == model::SyncKind::Allocation)) &&
        !e.value.empty())
      fresh.insert(e.value);
    if (e.kind != model::EventKind::Work && e.kind != model::EventKind::Copy) continue;
    bool init = !e.writes.empty();
    for (const auto& v : e.writes) init &= fresh.count(v) > 0;
    for (const auto& v : e.reads) init &= fresh.count(v) > 0;
    if (!init) return true;
  }
  return false;
}

// A host-to-device upload built from host data in the statement itself (`torch.tensor(list,
// device=...)`, `torch.tensor(x).to(device)`): its blocking copy waits for what the stream
// queued before it, nothing of its own.
bool hostBuiltUpload(const model::Function& f, const model::Event& sync) {
  if (sync.sync != model::SyncKind::BlockingCopy) return false;
  for (const auto& e : f.events)
    if (e.kind == model::EventKind::Copy && e.loc == sync.loc && e.dir == model::CopyDir::HostToDevice &&
        e.srcTemporary)
      return true;
  return false;
}

// A loop that only turns host values into device tensors (per item of a list, per layer of a
// config): no kernel, no device-to-host copy, no value read, no call of this module's code in
// it. The uploads wait for each other's copies only; the GPU has nothing else to run, so
// nothing idles per iteration. Outside per-step code that is set-up (constants uploaded
// once per layer), reported only at low confidence; a per-step function keeps it (the first
// upload waits for the previous step's tail every step).
bool onlyUploadsHostData(const model::Function& f, int loop) {
  for (const auto& e : f.events) {
    if (!model::scopeWithin(f, e.scope, loop)) continue;
    switch (e.kind) {
      case model::EventKind::Alloc:
      case model::EventKind::Free:
        break;
      case model::EventKind::Copy:
        // Bound to a name, the upload may feed work the model cannot see (an op on a tensor of
        // unknown device): only uploads handed straight to a container or call count.
        if (e.dir != model::CopyDir::HostToDevice || !e.srcTemporary || !e.value.empty()) return false;
        break;
      case model::EventKind::HostSync:
        if (!hostBuiltUpload(f, e)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

// The event after sync `i` in `f` is a host clock read (`torch.cuda.synchronize()` then
// `time.perf_counter()`): the sync makes the timing right.
bool timesWork(const model::Function& f, size_t i) {
  return i + 1 < f.events.size() && f.events[i + 1].kind == model::EventKind::Clock;
}

// Event `i` runs whenever `f` does (model::alwaysRuns), or, without a flow graph, sits only in
// branches on the arguments (`if ptr is not None:`, Scope::onArguments).
bool runsOnEveryCall(const model::Function& f, size_t i) {
  if (model::alwaysRuns(f, i)) return true;
  if (!f.flow.empty()) return false;
  for (int s = f.events[i].scope; s > 0; s = f.scopes[size_t(s)].parent)
    if (f.scopes[size_t(s)].kind != model::ScopeKind::Branch || !f.scopes[size_t(s)].onArguments) return false;
  return true;
}

// The guard that makes sync `e` occasional: the innermost logging or interval guard around it.
// A wait the API makes on its own (Event::unrequested: Lightning uploading a logged number) is
// paid whenever logging is on, so only a guard that spaces the call out in time counts there.
int guardOf(const model::Function& f, const model::Event& e) {
  if (!e.unrequested) return model::enclosingScope(f, e.scope, model::ScopeKind::Guarded);
  for (int s = e.scope; s > 0; s = f.scopes[size_t(s)].parent)
    if (f.scopes[size_t(s)].kind == model::ScopeKind::Guarded && f.scopes[size_t(s)].interval) return s;
  return -1;
}

class HostSyncInLoop : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions) {
      std::set<uint32_t> lines;
      std::set<int> churnLoops;  // loops whose allocation churn is reported (once per loop)
      for (const auto& e : f.events) {
        // Explicit synchronize() calls are deliberate in a loop (benchmarks, SL501's own fix);
        // the hazard is the implicit wait hidden in a value read, a blocking copy or an
        // allocation. In code that runs every step (forward, a hook) any sync is that hazard.
        bool explicitInHot = e.kind == model::EventKind::HostSync && !implicit(e.sync) && !f.hot.empty() &&
                             model::enclosingScope(f, e.scope, model::ScopeKind::Loop) < 0;
        // Unless a host clock is read right after it: that sync is the measurement's own (SL501's
        // fix), as deliberate as a benchmark loop's.
        if (explicitInHot && timesWork(f, size_t(&e - f.events.data()))) continue;
        if (e.kind != model::EventKind::HostSync || (!implicit(e.sync) && !explicitInHot)) continue;
        if (!lines.insert(e.loc.line).second) continue;  // `assert torch.equal(...)`: one per line
        int loop = model::enclosingScope(f, e.scope, model::ScopeKind::Loop);
        int guard = guardOf(f, e);
        if (loop < 0) {
          // No loop in sight, but the function itself runs every step (forward, an optimizer's
          // step, a hook): the same stall, once per step, unless a guard makes it occasional.
          if ((f.hot.empty() && f.perIteration.empty()) || guard >= 0) continue;
          // A closure called on every iteration of a loop (PyHotClosures.h): its body is the
          // loop's body, an `if` arm of it too; explicit syncs are deliberate there as in a loop.
          // So is a helper hot only through its caller that is also a loop's body (the loop
          // is the stronger reason).
          if (f.hot.empty() || (f.hotViaCaller && !f.perIteration.empty())) {
            if (e.sync == model::SyncKind::Allocation && !issuesGpuWork(f, 0)) continue;
            reportPerIteration(ctx, f, e);
            continue;
          }
          // A helper that is hot through its caller: only what it does on every call counts
          // (not a lazy `if self.x is None:` set-up, nor a cache refill after an early return);
          // an arm chosen by the arguments alone runs on every call given such arguments.
          if (f.hotViaCaller && (!runsOnEveryCall(f, size_t(&e - f.events.data())) ||
                                 (f.firstInnerReturn && e.loc.line > f.firstInnerReturn)))
            continue;
          if (e.sync == model::SyncKind::Allocation && !issuesGpuWork(f, 0)) continue;
          reportHot(ctx, f, e);
          continue;
        }
        // A guard between the sync and the loop (`if step % N == 0`) makes it occasional.
        if (guard >= 0 && model::scopeWithin(f, guard, loop)) continue;
        // Allocating in a loop that issues no GPU work beyond initialising what it allocates is
        // set-up (one buffer per stream or device), not a hot path: it stalls nothing.
        if (e.sync == model::SyncKind::Allocation && !issuesGpuWork(f, loop)) continue;
        if (e.sync == model::SyncKind::Allocation) {
          if (churnLoops.insert(loop).second) reportChurn(ctx, f, e, loop);
          continue;
        }
        if (f.hot.empty() && onlyUploadsHostData(f, loop)) {
          Finding& out = ctx.report(e.loc, what(e) +
                                               " uploads host data with a blocking copy on every loop "
                                               "iteration; the loop queues no other GPU work, so this "
                                               "is set-up unless the loop runs every step: build the "
                                               "values on the host and upload them once");
          out.properties["confidence"] = "low";
          ctx.note(out, f.scopes[size_t(loop)].loc, "loop starts here");
          continue;
        }
        Finding& out = ctx.report(e.loc, what(e) +
                                             " makes the host wait for the GPU on every loop iteration: "
                                             "the GPU idles while the host queues the next launches; "
                                             "accumulate on the GPU and read once, or read under an "
                                             "interval guard");
        ctx.note(out, f.scopes[size_t(loop)].loc, "loop starts here");
      }
    }
  }

 private:
  static std::string what(const model::Event& e) { return e.api.empty() ? "this call" : "'" + e.api + "'"; }

  // A sync in a function that runs more often than its own code shows: every step (`f.hot`) or
  // on every iteration of a caller's loop (`f.perIteration`).
  static void reportHot(RuleContext& ctx, const model::Function& f, const model::Event& e) {
    reportRunsOften(ctx, f, e, "every step (" + f.hot + ")", "keep the value on the GPU, or read it under an interval guard",
                    f.loc, "runs every step: " + f.hot);
  }
  static void reportPerIteration(RuleContext& ctx, const model::Function& f, const model::Event& e) {
    reportRunsOften(ctx, f, e, "on every iteration of " + f.perIteration,
                    "read the values of all iterations at once, before the loop", f.perIterationLoop,
                    "is called on every iteration of this loop");
  }
  static void reportRunsOften(RuleContext& ctx, const model::Function& f, const model::Event& e, const std::string& when,
                              const std::string& fix, const Loc& noteAt, const std::string& note) {
    std::string name = f.name.substr(f.name.rfind('.') + 1);  // npos + 1 == 0
    Finding& out = ctx.report(e.loc, what(e) + " makes the host wait for the GPU in `" + name + "()`, which runs " +
                                         when + ": the GPU idles while the host queues the next launches; " + fix);
    ctx.note(out, noteAt, "`" + name + "()` " + note);
  }

  // cudaMalloc/cudaFree (and friends) in a loop that launches work: one finding per loop, at
  // the first of them, naming the others, since one buffer's churn is one bug.
  static void reportChurn(RuleContext& ctx, const model::Function& f, const model::Event& first, int loop) {
    std::string what = first.api.empty() ? "this allocation" : "'" + first.api + "'";
    Finding& out = ctx.report(
        first.loc, what + " synchronizes the device on every iteration of a loop that launches GPU work: "
                          "the host waits for all queued work before each allocation or free, so the GPU "
                          "idles while the next launches are queued; allocate once before the loop and "
                          "reuse the buffer, or allocate on the stream (cudaMallocAsync / cudaFreeAsync, "
                          "LibTorch's caching allocator)");
    ctx.note(out, f.scopes[size_t(loop)].loc, "loop starts here");
    for (const auto& o : f.events)
      if (&o != &first && o.kind == model::EventKind::HostSync && o.sync == model::SyncKind::Allocation &&
          model::scopeWithin(f, o.scope, loop) && o.loc.line != first.loc.line)
        ctx.note(out, o.loc, (o.api.empty() ? std::string("allocation") : "'" + o.api + "'") + " synchronizes here too");
  }

  static bool implicit(model::SyncKind k) {
    return k == model::SyncKind::ValueRead || k == model::SyncKind::BlockingCopy ||
           k == model::SyncKind::Allocation;
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL302() { return std::make_unique<HostSyncInLoop>(); }

}  // namespace sl::rules
