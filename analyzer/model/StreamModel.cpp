#include "model/StreamModel.h"

#include <algorithm>

namespace sl::model {

std::string StreamRef::describe() const {
  switch (kind) {
    case StreamKind::Current: return "the current stream";
    case StreamKind::Default: return "the default stream";
    case StreamKind::Legacy: return "the legacy default stream";
    case StreamKind::PerThread: return "the per-thread default stream";
    case StreamKind::Side: return "stream '" + name + "'";
    case StreamKind::Unknown: return name.empty() ? "another stream" : "stream '" + name + "'";
  }
  return "a stream";
}

const Function* Module::find(const std::string& name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

bool scopeWithin(const Function& f, int inner, int outer) {
  for (int s = inner; s >= 0; s = f.scopes[size_t(s)].parent)
    if (s == outer) return true;
  return false;
}

int enclosingScope(const Function& f, int scope, ScopeKind kind) {
  for (int s = scope; s >= 0; s = f.scopes[size_t(s)].parent)
    if (f.scopes[size_t(s)].kind == kind) return s;
  return -1;
}

int enclosingSideRegion(const Function& f, int scope) {
  for (int s = scope; s >= 0; s = f.scopes[size_t(s)].parent) {
    const Scope& sc = f.scopes[size_t(s)];
    if (sc.kind != ScopeKind::StreamRegion) continue;
    // A region back onto the current/default stream ends the side-stream context inside it.
    return sc.stream.isSide() ? s : -1;
  }
  return -1;
}

StreamRef effectiveStream(const Function& f, int scope) {
  int r = enclosingScope(f, scope, ScopeKind::StreamRegion);
  return r < 0 ? StreamRef::current() : f.scopes[size_t(r)].stream;
}

namespace {

bool hasBlocks(const Function& f, size_t a, size_t b) {
  return !f.flow.empty() && f.events[a].block >= 0 && f.events[b].block >= 0;
}

}  // namespace

bool dominates(const Function& f, size_t a, size_t b) {
  if (a >= b || b >= f.events.size()) return false;
  if (hasBlocks(f, a, b)) {
    size_t ba = size_t(f.events[a].block), bb = size_t(f.events[b].block);
    return ba == bb || f.flow.dom[bb][ba];
  }
  return scopeWithin(f, f.events[b].scope, f.events[a].scope);
}

bool exclusiveScopes(const Function& f, int a, int b) {
  for (int x = a; x > 0; x = f.scopes[size_t(x)].parent) {
    const int arms = f.scopes[size_t(x)].firstArm;
    if (arms < 0) continue;
    for (int y = b; y > 0; y = f.scopes[size_t(y)].parent)
      if (f.scopes[size_t(y)].firstArm == arms) {
        if (y != x) return true;
        break;
      }
  }
  return false;
}

bool mayFollow(const Function& f, size_t a, size_t b) {
  if (a >= f.events.size() || b >= f.events.size()) return false;
  if (!hasBlocks(f, a, b)) return a < b && !exclusiveScopes(f, f.events[a].scope, f.events[b].scope);
  size_t ba = size_t(f.events[a].block), bb = size_t(f.events[b].block);
  if (ba == bb && a < b) return true;
  return f.flow.reach[ba][bb];
}

bool alwaysRuns(const Function& f, size_t e) {
  if (e >= f.events.size()) return false;
  const Flow& g = f.flow;
  if (g.empty() || f.events[e].block < 0) return f.events[e].scope == 0;
  if (g.exit < 0 || !g.reach[size_t(g.entry)][size_t(g.exit)]) return false;  // never returns
  return g.dom[size_t(g.exit)][size_t(f.events[e].block)];
}

void computeFlow(Flow& g) {
  const size_t n = g.succ.size();
  g.dom.assign(n, std::vector<bool>(n, false));
  g.reach.assign(n, std::vector<bool>(n, false));
  if (n == 0 || g.entry < 0) return;
  // Reachability: a depth-first walk from every block (graphs are per function, small).
  for (size_t a = 0; a < n; ++a) {
    std::vector<int> stack(g.succ[a].begin(), g.succ[a].end());
    while (!stack.empty()) {
      int b = stack.back();
      stack.pop_back();
      if (g.reach[a][size_t(b)]) continue;
      g.reach[a][size_t(b)] = true;
      for (int c : g.succ[size_t(b)]) stack.push_back(c);
    }
  }
  // Dominators: the classic iterative data flow over blocks reachable from the entry.
  std::vector<std::vector<int>> preds(n);
  for (size_t a = 0; a < n; ++a)
    for (int b : g.succ[a]) preds[size_t(b)].push_back(int(a));
  const size_t entry = size_t(g.entry);
  auto live = [&](size_t b) { return b == entry || g.reach[entry][b]; };
  for (size_t b = 0; b < n; ++b)
    if (live(b)) g.dom[b].assign(n, b != entry);
  g.dom[entry][entry] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < n; ++b) {
      if (b == entry || !live(b)) continue;
      std::vector<bool> d(n, true);
      for (int p : preds[b])
        if (live(size_t(p)))
          for (size_t k = 0; k < n; ++k) d[k] = d[k] && g.dom[size_t(p)][k];
      d[b] = true;
      if (d != g.dom[b]) g.dom[b] = std::move(d), changed = true;
    }
  }
}

bool mentions(const Event& e, const std::string& value) {
  return std::find(e.reads.begin(), e.reads.end(), value) != e.reads.end() ||
         std::find(e.writes.begin(), e.writes.end(), value) != e.writes.end();
}

namespace {
// With a CFG, only what runs on every path counts (a helper that syncs only after an early
// return's test does not make each call a sync); without one, anything in the body does.
bool counts(const Function& f, size_t i) { return f.flow.empty() || alwaysRuns(f, i); }

// The parameter of f (index into f.params, the first 64) whose tensor the value path names:
// `x`, `x.grad`, `xs[i]`, or a local taken from one without new storage (Function::argOf,
// partOf: `for p in params:`, `x = xs[i]`); -1 for anything else (object state is no argument).
int parameterOf(const Function& f, const std::string& path) {
  std::string head = path.substr(0, path.find_first_of(".["));
  for (int depth = 0; depth < 8 && !head.empty(); ++depth) {
    if (head == "self" || head == "cls") return -1;
    auto p = std::find(f.params.begin(), f.params.end(), head);
    if (p != f.params.end()) return p - f.params.begin() < 64 ? int(p - f.params.begin()) : -1;
    if (auto a = f.argOf.find(head); a != f.argOf.end()) head = a->second;
    else if (auto l = f.partOf.find(head); l != f.partOf.end()) head = l->second.substr(0, l->second.find_first_of(".["));
    else return -1;
  }
  return -1;
}

// The argument a call hands to the callee's parameter j ("" when none or not a plain value).
// A method's `self` is its receiver, not a positional argument.
const std::string& argumentFor(const Event& call, const FunctionSummary& c, size_t j) {
  static const std::string none;
  const std::vector<std::string>& params = *c.params;
  if (j >= params.size()) return none;
  for (const auto& [k, v] : call.kwargs)
    if (k == params[j]) return v;
  const size_t skip = !params.empty() && (params[0] == "self" || params[0] == "cls") ? 1 : 0;
  if (j < skip || j - skip >= call.args.size()) return none;
  return call.args[j - skip];
}

// What the callee's summary says the call reads (`writes` false) or writes, as the caller's paths.
template <typename Fn>
void forEachArgumentTouched(const Event& call, const FunctionSummary& c, bool writes, Fn&& fn) {
  const uint64_t bits = writes ? c.writesParams : c.readsParams;
  if (!bits || !c.params) return;
  for (size_t j = 0; j < 64; ++j)
    if (bits & (uint64_t(1) << j))
      if (const std::string& a = argumentFor(call, c, j); !a.empty() && a[0] != '<') fn(a);
}

// Merges what callee `c` does into caller summary `s` (the call at event i of f); true if s grew.
bool merge(FunctionSummary& s, const FunctionSummary& c, const Function& f, size_t i) {
  bool changed = false;
  for (bool writes : {false, true})
    forEachArgumentTouched(f.events[i], c, writes, [&](const std::string& a) {
      const int p = parameterOf(f, a);
      if (p < 0) return;
      uint64_t& into = writes ? s.writesParams : s.readsParams;
      if (!(into & (uint64_t(1) << p))) into |= uint64_t(1) << p, changed = true;
    });
  if (!s.gpuWork && c.gpuWork) s.gpuWork = true, changed = true;
  if (!s.ordersStreams && c.ordersStreams) s.ordersStreams = true, changed = true;
  if (!counts(f, i)) return changed;
  if (!s.sync && c.sync) s.sync = c.sync, s.syncOwner = c.syncOwner, s.syncPath = c.syncPath, changed = true;
  if (!s.alloc && c.alloc) s.alloc = c.alloc, changed = true;
  if (!s.backward && c.backward) s.backward = c.backward, s.backwardOwner = c.backwardOwner, changed = true;
  if (!s.deviceWork && c.deviceWork) s.deviceWork = true, changed = true;
  return changed;
}
}  // namespace

ModuleSummary::ModuleSummary(const Module& m) : module_(&m) {
  // Direct facts first, then propagate through Call events until nothing changes
  // (recursion terminates because facts only grow).
  for (const auto& f : m.functions) {
    FunctionSummary s;
    s.params = &f.params;
    // A device kernel's launch is GPU work on the memory it loads from and stores to.
    s.readsParams = f.kernelLoads, s.writesParams = f.kernelStores;
    if (f.deviceKernel) s.gpuWork = s.deviceWork = true;
    for (size_t i = 0; i < f.events.size(); ++i) {
      const Event& e = f.events[i];
      // GPU work on what the caller handed over (not a guess's: low confidence is one).
      if ((e.kind == EventKind::Work || e.kind == EventKind::Copy) && e.confidence != Confidence::Low) {
        for (const auto& v : e.reads)
          if (int p = parameterOf(f, v); p >= 0) s.readsParams |= uint64_t(1) << p;
        for (const auto& v : e.writes)
          if (int p = parameterOf(f, v); p >= 0) s.writesParams |= uint64_t(1) << p;
      }
      // A guessed call (assumed, low: a module kept in object state, run with its weights) names
      // state for the ordering rules; it proves no GPU work in the function.
      const bool guess = e.assumed && e.confidence == Confidence::Low;
      if ((e.kind == EventKind::Work || e.kind == EventKind::Alloc || e.kind == EventKind::Copy) && !guess)
        s.gpuWork = true;
      if (e.kind == EventKind::Wait || e.kind == EventKind::RecordStream) s.ordersStreams = true;
      if (!counts(f, i)) continue;
      if (e.kind == EventKind::HostSync && !s.sync) s.sync = &e, s.syncOwner = &f, s.syncPath = &m.path;
      if (e.kind == EventKind::Alloc && !s.alloc) s.alloc = &e;
      if (e.kind == EventKind::Backward && !s.backward) s.backward = &e, s.backwardOwner = &f;
      if ((e.kind == EventKind::Work && !guess) || (e.kind == EventKind::Copy && e.dir != CopyDir::HostToDevice))
        s.deviceWork = true;
    }
    byName_.emplace(f.name, s);
  }
  propagate();
}

bool ModuleSummary::propagate() {
  bool grew = false;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& f : module_->functions) {
      FunctionSummary& s = byName_[f.name];
      for (size_t i = 0; i < f.events.size(); ++i) {
        const Event& e = f.events[i];
        if (e.kind != EventKind::Call) continue;
        const FunctionSummary* c = of(e.callee);
        if (!c || c == &s) continue;
        changed |= merge(s, *c, f, i);
      }
    }
    grew |= changed;
  }
  return grew;
}

void ModuleSummary::setExternal(ExternalLookup lookup) { external_ = std::move(lookup); }

const FunctionSummary* ModuleSummary::of(const std::string& callee) const {
  auto it = byName_.find(callee);
  if (it != byName_.end()) return &it->second;
  return external_ ? external_(callee) : nullptr;
}

void settleHandedStreams(Module& m, const ModuleSummary& s) {
  // A closure shares its enclosing function's streams (`def call_ag(): producer(a, bufs,
  // ag_stream)` inside the function that forks and joins `ag_stream`): the protocol it runs on
  // them is the enclosing function's too. Decided before any region is settled.
  std::map<std::string_view, const Function*> byName;
  for (const auto& f : m.functions) byName.emplace(f.name, &f);
  std::vector<std::vector<const Event*>> outerOrders(m.functions.size());
  for (size_t i = 0; i < m.functions.size(); ++i) {
    std::string_view name = m.functions[i].name;
    for (size_t dot = name.rfind('.'); dot != std::string_view::npos; dot = name.rfind('.', dot - 1)) {
      auto it = byName.find(name.substr(0, dot));
      if (it != byName.end()) {
        for (const auto& e : it->second->events)
          if (e.kind == EventKind::Wait || e.kind == EventKind::EventRecord) outerOrders[i].push_back(&e);
        break;
      }
      if (dot == 0) break;
    }
  }
  for (size_t fi = 0; fi < m.functions.size(); ++fi) {
    Function& f = m.functions[fi];
    for (size_t r = 0; r < f.scopes.size(); ++r) {
      Scope& sc = f.scopes[r];
      if (sc.kind != ScopeKind::StreamRegion || !sc.handedStream) continue;
      const bool owned = std::any_of(f.events.begin(), f.events.end(), [&](const Event& e) {
        const FunctionSummary* c = e.kind == EventKind::Call && int(r) == e.scope ? s.of(e.callee) : nullptr;
        return c && c->ordersStreams;
      });
      // The function runs a protocol on the stream: it waits on or for it, records an event on
      // it, or enters it in a region of its own.
      auto orders = [&](const Event& e) {
        return (e.kind == EventKind::Wait && (e.stream == sc.stream || e.other == sc.stream)) ||
               (e.kind == EventKind::EventRecord && e.stream == sc.stream);
      };
      const bool ordered =
          std::any_of(f.events.begin(), f.events.end(), orders) ||
          std::any_of(outerOrders[fi].begin(), outerOrders[fi].end(), [&](const Event* e) { return orders(*e); }) ||
          std::any_of(f.scopes.begin(), f.scopes.end(), [&](const Scope& o) {
            return o.kind == ScopeKind::StreamRegion && !o.handedStream && o.stream == sc.stream;
          });
      if (!owned && ordered) continue;
      sc.stream = effectiveStream(f, sc.parent);
      sc.handedStream = false;
      for (auto& e : f.events)
        if (e.scope == int(r) && !e.streamExplicit) e.stream = sc.stream;
    }
  }
}

void applyParameterEffects(Module& m, const ModuleSummary& s) {
  for (auto& f : m.functions)
    for (size_t i = 0; i < f.events.size(); ++i) {
      if (f.events[i].kind != EventKind::Call || (f.events[i].args.empty() && f.events[i].kwargs.empty())) continue;
      const FunctionSummary* c = s.of(f.events[i].callee);
      if (!c || !(c->readsParams | c->writesParams)) continue;
      // The GPU work the frontend lowered for the same call (a region's helper call) says it
      // too; on a side stream, where none was lowered (the caller could not tell its arguments
      // were CUDA tensors), the callee's work is that call's GPU work, inserted before it.
      long work = -1;
      for (size_t k = i; k-- > 0 && f.events[k].loc == f.events[i].loc;)
        if (f.events[k].kind == EventKind::Work) work = long(k);
      if (work < 0 && f.events[i].stream.isSide()) {
        Event w;
        w.kind = EventKind::Work;
        w.loc = f.events[i].loc, w.scope = f.events[i].scope, w.stream = f.events[i].stream;
        w.streamExplicit = f.events[i].streamExplicit, w.block = f.events[i].block;
        w.api = f.events[i].callee;
        w.confidence = Confidence::Medium;
        w.evidence = {{f.events[i].loc, "`" + f.events[i].callee + "` runs GPU work on what it is handed"}};
        f.events.insert(f.events.begin() + long(i), std::move(w));
        for (auto& st : f.stashes)
          if (st.before > i) ++st.before;
        work = long(i++);
      }
      Event& call = f.events[i];
      for (bool writes : {false, true})
        forEachArgumentTouched(call, *c, writes, [&](const std::string& a) {
          for (Event* e : {&call, work >= 0 ? &f.events[size_t(work)] : nullptr}) {
            if (!e) continue;
            auto& list = writes ? e->writes : e->reads;
            if (std::find(list.begin(), list.end(), a) == list.end()) list.push_back(a);
          }
        });
    }
}

const char* confidenceName(Confidence c) {
  switch (c) {
    case Confidence::Low: return "low";
    case Confidence::Medium: return "medium";
    case Confidence::High: return "high";
  }
  return "?";
}

int parseConfidence(std::string_view name) {
  if (name == "low") return int(Confidence::Low);
  if (name == "medium") return int(Confidence::Medium);
  if (name == "high") return int(Confidence::High);
  return -1;
}

const char* eventKindName(EventKind k) {
  switch (k) {
    case EventKind::Work: return "work";
    case EventKind::Alloc: return "alloc";
    case EventKind::HostSync: return "host-sync";
    case EventKind::Wait: return "wait";
    case EventKind::EventRecord: return "event-record";
    case EventKind::RecordStream: return "record-stream";
    case EventKind::Free: return "free";
    case EventKind::Backward: return "backward";
    case EventKind::Clock: return "clock";
    case EventKind::Copy: return "copy";
    case EventKind::StreamCreate: return "stream-create";
    case EventKind::EventCreate: return "event-create";
    case EventKind::HostRead: return "host-read";
    case EventKind::HostWrite: return "host-write";
    case EventKind::Call: return "call";
  }
  return "?";
}

}  // namespace sl::model
