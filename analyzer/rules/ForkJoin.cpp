#include "rules/ForkJoin.h"

#include <algorithm>
#include <set>

#include "rules/ObjectState.h"
#include "rules/RuleHelpers.h"

namespace sl::rules {
namespace {

using model::EventKind;

// Event `r` (a record) is used: waited on, synchronized or handed on (returned, passed away),
// in `f` or, for an event kept on `self` (`self.done.record(s)`), in any function of the module.
// A record nobody uses orders nothing.
bool recordUsed(const model::Module& m, const model::Function& f, const model::Event& r) {
  if (r.value.empty()) return false;
  const bool state = !stateRoot(f, r.value).empty();
  auto usedIn = [&](const model::Function& g) {
    auto in = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), r.value) != v.end(); };
    if (in(g.returned) || in(g.escaped)) return true;
    return std::any_of(g.events.begin(), g.events.end(), [&](const model::Event& e) {
      return &e != &r && e.kind != EventKind::EventRecord && e.kind != EventKind::EventCreate &&
             (e.value == r.value || mentions(e, r.value));
    });
  };
  if (!state) return usedIn(f);
  return std::any_of(m.functions.begin(), m.functions.end(), usedIn);
}

// A fork at `w`: side stream `s` made to wait for another stream the function works on
// (`s.wait_stream(current)`, or for a function that runs on a stream it was handed,
// `ag_stream.wait_stream(compute_stream)`), or (C/C++) a wait of `s` on an event this function
// recorded on another stream before it.
bool isFork(const model::Function& f, size_t i) {
  const auto& w = f.events[i];
  if (w.kind != EventKind::Wait || !w.stream.isSide() || w.stream.name.empty()) return false;
  if (model::enclosingSideRegion(f, w.scope) >= 0) return false;
  // `compute.wait_stream(reduce)` after `reduce.wait_stream(compute)` joins `reduce` back.
  for (size_t k = 0; k < i; ++k)
    if (f.events[k].kind == EventKind::Wait && sameStream(f.events[k].stream, w.other) &&
        sameStream(f.events[k].other, w.stream))
      return false;
  if (w.value.empty()) return !w.other.isSide() || !w.other.name.empty();
  for (size_t k = 0; k < i; ++k)
    if (f.events[k].kind == EventKind::EventRecord && f.events[k].value == w.value &&
        !sameStream(f.events[k].stream, w.stream))
      return true;
  return false;
}

// The stream the fork at `i` orders `s` after: the waited stream, or the stream the waited
// event was recorded on.
model::StreamRef forkSource(const model::Function& f, size_t i) {
  const auto& w = f.events[i];
  if (w.value.empty()) return w.other;
  for (size_t k = i; k-- > 0;)
    if (f.events[k].kind == EventKind::EventRecord && f.events[k].value == w.value) return f.events[k].stream;
  return model::StreamRef::current();
}

bool joins(const model::Event& e, const model::StreamRef& s) {
  return e.kind == EventKind::Wait && e.value.empty() && sameStream(e.other, s);
}

// GPU work queued on `s` by event `k`: an op, a copy onto the device or a backward on it, a
// call handed `s`, or a call inside a region on it whose callee runs GPU work. Not a copy to the host: an offload's
// consumer is the host, which must synchronize on the copy anyway (SL203), and the inputs'
// lifetime is SL201's.
bool workOn(const model::Module& m, const model::Function& f, size_t k, const model::StreamRef& s,
            const model::ModuleSummary& summary, int depth = 0) {
  const auto& e = f.events[k];
  // A closure of `f` (`call_ag()`, defined in `f`) shares its streams: the work it queues on `s`
  // is queued at the call.
  if (e.kind == EventKind::Call && depth < 2 && e.callee.starts_with(f.name + "."))
    if (const model::Function* g = m.find(e.callee))
      for (size_t j = 0; j < g->events.size(); ++j)
        if (workOn(m, *g, j, s, summary, depth + 1)) return true;
  for (const auto& [at, also] : f.alsoHanded)
    if (e.kind == EventKind::Call && at == e.loc && sameStream(also, s)) return true;
  if (!sameStream(e.stream, s)) return false;
  if (e.kind == EventKind::Work || e.kind == EventKind::Backward) return true;
  if (e.kind == EventKind::Copy) return e.dir != model::CopyDir::DeviceToHost;
  if (e.kind != EventKind::Call || model::enclosingSideRegion(f, e.scope) < 0) return false;
  // A call handed the stream (Scope::handedStream) was given it to queue work there.
  if (f.scopes[size_t(e.scope)].handedStream) return true;
  const model::FunctionSummary* c = summary.of(e.callee);
  return c && c->gpuWork;
}

// Something after the fork finishes the protocol in `f` itself (see ForkJoin.h).
bool finishedHere(const model::Module& m, const model::Function& f, size_t fork, size_t last,
                  const model::StreamRef& s, const model::ModuleSummary& summary) {
  if (std::find(f.returned.begin(), f.returned.end(), s.name) != f.returned.end()) return true;
  // A host sync or an event wait by the current stream after the work, on every path to the
  // end (a `torch.cuda.synchronize()` under `if serial:` orders only that path).
  if (orderedBetween(f, last, f.events.size(), model::StreamRef::current(), s)) return true;
  // A join after the fork (also one under a branch: it says the author joins here), or one in
  // a loop that holds the fork (a pipeline joins the last step at the top of the next).
  // Not one in an arm that never runs with the last work's (`if serial: call(); join` ...
  // `else: call()`): the other arm returns unjoined.
  const int loop = model::enclosingScope(f, f.events[fork].scope, model::ScopeKind::Loop);
  for (size_t k = 0; k < f.events.size(); ++k) {
    const auto& e = f.events[k];
    if (joins(e, s) && (k > fork || (loop >= 0 && model::scopeWithin(f, e.scope, loop))) &&
        !model::exclusiveScopes(f, e.scope, f.events[last].scope))
      return true;
    // A CUDA graph capture (its entry is a device-wide wait): the work is captured, and runs
    // when the graph is replayed, on the stream the replay is ordered on.
    if (e.kind == EventKind::Wait && e.value == model::kDeviceWideWait) return true;
    if (k <= fork) continue;
    if (k > last && e.kind == EventKind::EventRecord && sameStream(e.stream, s) && recordUsed(m, f, e)) return true;
    if (e.kind == EventKind::Call && k > last) {
      const model::FunctionSummary* c = summary.of(e.callee);
      if (c && ((c->sync && c->sync->sync == model::SyncKind::Device) || c->ordersStreams)) return true;
    }
  }
  return false;
}

}  // namespace

// `f` forks `s`, and joins a stream it forked (`s` on another path, or another one) back after
// its fork.
bool keepsForkProtocol(const model::Function& f, const model::StreamRef& s) {
  bool forked = false;
  for (size_t i = 0; i < f.events.size() && !forked; ++i) forked = isFork(f, i) && sameStream(f.events[i].stream, s);
  if (!forked) return false;
  for (size_t i = 0; i < f.events.size(); ++i) {
    if (!isFork(f, i)) continue;
    for (size_t k = i + 1; k < f.events.size(); ++k)
      if (joins(f.events[k], f.events[i].stream)) return true;
  }
  return false;
}

bool finishedElsewhere(const model::Module& m, const model::Function& f, const model::StreamRef& s) {
  const std::string cls = stateRoot(f, s.name).empty() ? "" : classOf(f.name);
  // A stream `f` was handed or made itself (a parameter, a local it creates) reaches another
  // function only through a call: a same-named local of a function `f` never calls is another
  // stream. Its closures share it, and what they call is handed it.
  const std::string head = s.name.substr(0, s.name.find_first_of(".["));
  const bool own = head == s.name && (std::find(f.params.begin(), f.params.end(), head) != f.params.end() ||
                                      std::any_of(f.events.begin(), f.events.end(), [&](const model::Event& e) {
                                        return e.kind == EventKind::StreamCreate && e.value == head;
                                      }));
  std::set<std::string> reached;
  if (own)
    for (const auto& g : m.functions)
      if (&g == &f || g.name.starts_with(f.name + ".")) {
        reached.insert(g.name);
        for (const auto& e : g.events)
          if (e.kind == EventKind::Call) reached.insert(e.callee);
      }
  for (const auto& g : m.functions) {
    if (&g == &f || (own && !reached.count(g.name))) continue;
    const bool sameClass = !cls.empty() && classOf(g.name) == cls;
    bool joined = false, forked = false;
    for (size_t k = 0; k < g.events.size(); ++k) {
      const auto& e = g.events[k];
      joined |= joins(e, s);
      forked |= sameStream(e.stream, s) && isFork(g, k);
      if (sameClass && ((e.kind == EventKind::EventRecord && sameStream(e.stream, s)) ||
                        (e.kind == EventKind::HostSync && e.sync == model::SyncKind::Stream && sameStream(e.stream, s))))
        return true;
    }
    if (joined && (!forked || sameClass)) return true;
  }
  return false;
}

namespace {

// After the fork, `f` drops a tensor that work on `s` reads (`p.grad = None` after a copy of
// it): that is SL201's finding, whose fix (record_stream, or this join) covers this one.
bool dropsWhatItReads(const model::Function& f, size_t fork, const model::StreamRef& s) {
  std::set<std::string> read;
  for (size_t k = fork + 1; k < f.events.size(); ++k) {
    const auto& e = f.events[k];
    if (sameStream(e.stream, s)) read.insert(e.reads.begin(), e.reads.end());
    else if (e.kind == EventKind::Free && read.count(e.value)) return true;
  }
  return false;
}

// Where `f` hands control back after event `last`: the first `return` after it, else the
// function's last event (where a join at the end would go), else `last` itself.
Loc exitAfter(const model::Function& f, const model::Event& last) {
  for (const Loc& r : f.returnedAt)
    if (r.known() && last.loc.line < r.line) return r;
  Loc end = last.loc;
  for (const auto& e : f.events)
    if (end.line < e.loc.line) end = e.loc;
  return end;
}

}  // namespace

std::vector<UnjoinedFork> unjoinedForks(const model::Module& m, const model::ModuleSummary& summary) {
  std::vector<UnjoinedFork> out;
  for (const auto& f : m.functions) {
    std::set<std::string> seen;
    for (size_t i = 0; i < f.events.size(); ++i) {
      if (!isFork(f, i)) continue;
      const model::StreamRef& s = f.events[i].stream;
      if (!seen.insert(s.name).second) continue;
      long last = -1;
      for (size_t k = i + 1; k < f.events.size(); ++k)
        if (workOn(m, f, k, s, summary)) last = long(k);
      if (last < 0 || finishedHere(m, f, i, size_t(last), s, summary) || finishedElsewhere(m, f, s) ||
          dropsWhatItReads(f, i, s))
        continue;
      UnjoinedFork u;
      u.fn = &f;
      u.fork = &f.events[i];
      u.lastWork = &f.events[size_t(last)];
      u.exitAt = exitAfter(f, *u.lastWork);
      u.stream = s;
      u.from = forkSource(f, i);
      // Handed in and forked from the current stream: an API that queues on the caller's stream
      // and leaves the join to it. Forked from another stream it was handed (`compute_stream`),
      // the function orders the two itself.
      // A function that joins a stream it forked (this one on another path, or another) keeps
      // the protocol itself: it does not leave this join to the caller.
      u.streamIsParameter = std::find(f.params.begin(), f.params.end(), s.name) != f.params.end() &&
                            !f.events[i].other.isSide() && !keepsForkProtocol(f, s);
      out.push_back(u);
    }
  }
  return out;
}

}  // namespace sl::rules
