// SL101 side-stream-use-without-wait: see rule.md.
#include <algorithm>
#include <optional>
#include <set>

#include "rules/ClassProtocol.h"
#include "rules/EventIndex.h"
#include "rules/EventUse.h"
#include "rules/ObjectState.h"
#include "rules/Rule.h"
#include "rules/RuleHelpers.h"

namespace sl::rules {
namespace {

using model::EventKind;

class SideStreamUseWithoutWait : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    // The class-wide finding first: a region it reports is not reported again at its header.
    const std::set<Loc> classWide = acrossMethods(ctx);
    for (const auto& f : ctx.module().functions) {
      std::set<size_t> reported;
      for (size_t i = 0; i < f.events.size(); ++i) {
        const auto& e = f.events[i];
        if (e.kind != EventKind::Work && e.kind != EventKind::Copy) continue;
        // Work on a side stream: inside a side region, or launched on a named stream.
        if (!e.stream.isSide()) continue;
        for (const auto& v : e.reads) {
          long p = producerOf(f, v, i);
          if (p < 0) continue;
          const auto& prod = f.events[size_t(p)];
          if (sameStream(prod.stream, e.stream) || orderedBetween(f, size_t(p), i, e.stream, prod.stream) ||
              waitFollowsProducer(f, size_t(p), i, e.stream, prod.stream) ||
              pickedAfterAWait(f, size_t(p), i, e.stream, prod.stream))
            continue;
          Finding& out = ctx.report(
              e.loc, "'" + v + "' is used on " + e.stream.describe() + " but was produced on " +
                         prod.stream.describe() + " with no wait in between: the side stream can read it "
                         "before it is written; call " +
                         waitHint(ctx.module().lang, e.stream, p < 0 ? model::StreamRef{} : f.events[size_t(p)].stream) +
                         " before this use");
          ctx.note(out, prod.loc, "'" + v + "' produced on " + prod.stream.describe() + " here");
          if (int r = model::enclosingSideRegion(f, e.scope); r >= 0)
            ctx.note(out, f.scopes[size_t(r)].loc, "side-stream region starts here");
          reported.insert(i);
          break;  // one finding per use site
        }
      }
      regionsWithoutWait(ctx, f, reported, classWide);
    }
    for (const auto& u : unusedRecords(ctx.module()))
      if (!u.afterWork) reportUnusedRecord(ctx, *u.record);
  }

  // An event recorded on a stream before any work there, that nothing in the file consumes
  // (rules/EventUse.h): it was recorded so that another stream starts after this point, and
  // the wait that would make it is missing. Reported at the record, where the wait goes.
  static void reportUnusedRecord(RuleContext& ctx, const model::Event& r) {
    const bool torch = r.api.find("::") != std::string::npos;
    const std::string wait = torch ? r.value + ".block(stream)" : "cudaStreamWaitEvent(stream, " + r.value + ")";
    Finding& out = ctx.report(r.loc, "'" + r.value + "' is recorded on " + r.stream.describe() +
                                         ", but nothing in this file waits on it, synchronizes it or hands it on: "
                                         "the stream meant to start after this point never waits, and its work "
                                         "can read what " + r.stream.describe() + " has not written yet; call " + wait +
                                         " before that stream's work");
    out.properties["confidence"] = "medium";
  }

  // Written on the current stream in one method of a class, used by GPU work on a side stream
  // in another (a bucketed reducer's hook fills `self.buffer`, `reduce()` all-reduces it on the
  // comm stream), and no method of the class makes that side stream wait (rules/ClassProtocol.h).
  // Returns the regions reported.
  static std::set<Loc> acrossMethods(RuleContext& ctx) {
    std::set<std::pair<uint32_t, std::string>> reported;
    std::set<Loc> regions;
    for (const auto& p : unwaitedStateUses(ctx.module())) {
      if (!reported.insert({p.readAt.line, p.root}).second) continue;
      regions.insert(p.regionAt);
      Finding& out = ctx.report(
          p.readAt, "'" + p.root + "' is used on " + p.consumer.describe() + " in " + methodName(*p.reader) +
                        " but written on " + p.producer.describe() + " in " + methodName(*p.writer) +
                        ", and no method of `" + p.cls + "` makes " + p.consumer.describe() +
                        " wait: the side stream can read it before it is written; call " +
                        waitHint(ctx.module().lang, p.consumer, p.producer) + " before this use");
      out.properties["confidence"] = "medium";
      ctx.note(out, p.writeAt, "'" + p.root + "' written on " + p.producer.describe() + " in " + methodName(*p.writer) + " here");
      if (p.regionAt.known()) ctx.note(out, p.regionAt, "side-stream region starts here");
    }
    return regions;
  }

  // A side-stream region whose first GPU work reads what the caller or another method produced
  // (a parameter, `self.` state) or runs in a callee, with no wait by that stream anywhere
  // before it in this function: the producer is not visible here, but nothing orders the side
  // stream after the stream the inputs were made on (the usual idiom waits right before the
  // region). Low confidence: the caller or a helper usually waited (bench/precision).
  static void regionsWithoutWait(RuleContext& ctx, const model::Function& f, const std::set<size_t>& reported,
                                 const std::set<Loc>& classWide) {
    for (size_t r = 0; r < f.scopes.size(); ++r) {
      const auto& sc = f.scopes[r];
      if (sc.kind != model::ScopeKind::StreamRegion || !sc.stream.isSide() || classWide.count(sc.loc)) continue;
      if (stateWrittenBeforeCall(ctx, f, int(r), reported)) continue;
      long first = -1;
      for (size_t i = 0; i < f.events.size() && first < 0; ++i) {
        const auto& e = f.events[i];
        if (!model::scopeWithin(f, e.scope, int(r)) || !sameStream(e.stream, sc.stream)) continue;
        // A copy out of device memory (D2H, D2D) reads its source on the region's stream too.
        const bool readsDevice = e.kind == EventKind::Copy && (e.dir == model::CopyDir::DeviceToHost ||
                                                               e.dir == model::CopyDir::DeviceToDevice);
        bool outside = (e.kind == EventKind::Work || e.kind == EventKind::Backward || readsDevice) &&
                       std::any_of(e.reads.begin(), e.reads.end(), [&](const std::string& v) { return producerOf(f, v, i) < 0; });
        const model::FunctionSummary* s = e.kind == EventKind::Call ? ctx.summary().of(e.callee) : nullptr;
        // A callee handed the stream (Scope::handedStream) is judged by the CUDA tensors it is
        // handed: that it runs kernels says nothing of whose data they read.
        if (outside || (s && s->deviceWork && !sc.handedStream)) first = long(i);
      }
      if (first < 0 || reported.count(size_t(first)) || waitedBefore(f, size_t(first), sc.stream)) continue;
      const auto& e = f.events[size_t(first)];
      // Inputs autograd or a module call hands over (producedByCaller) are named first.
      const std::string* given = producedByCaller(f, int(r), size_t(first));
      // A stream constructed in the region's own header (`with torch.cuda.stream(torch.cuda.Stream()):`)
      // is new: nobody can have made it wait, and a wait must be called on it before the region.
      const bool fresh = sc.freshStream;
      std::string fix = fresh ? "create the stream before the region (s = torch.cuda.Stream()), call "
                                      "s.wait_stream(torch.cuda.current_stream()), then enter torch.cuda.stream(s)"
                                    : "call " + waitHint(ctx.module().lang, sc.stream, model::StreamRef::current()) +
                                          " before the region";
      const long dead = given ? -1 : deadRecordBefore(ctx.module(), f, size_t(first), sc.stream);
      // Two promotions below need an input whose producer is known to be elsewhere: the
      // caller's argument, the object's state or a callee's work (not a local made by a call the
      // model does not know, which may have run in the region itself; not a backward: autograd
      // orders its ops after their forward's stream itself).
      auto fromElsewhere = [&](const std::string& v) {
        if (producerOf(f, v, size_t(first)) >= 0) return false;
        const std::string root = stateRoot(f, v);
        return !parameterRoot(f, v).empty() || (!root.empty() && !constructorConstant(ctx.module(), f, root));
      };
      // Named: what the caller handed over, else an input made elsewhere (not the destination
      // of an in-place copy the region made itself), else the first input.
      auto named = std::find_if(e.reads.begin(), e.reads.end(), fromElsewhere);
      if (named == e.reads.end()) named = e.reads.begin();
      std::string what = given ? "this GPU work reads '" + *given + "'"
                         : e.kind == EventKind::Call ? "'" + e.callee + "()' issues GPU work"
                                                     : "this GPU work reads '" + *named + "'";
      const bool handed = e.kind == EventKind::Call ||
                          (e.kind != EventKind::Backward && std::any_of(e.reads.begin(), e.reads.end(), fromElsewhere));
      // The module's other regions on this stream wait before they start: this one breaks the
      // module's own protocol (the wait was forgotten or deleted here), not a convention that
      // callers wait.
      const std::optional<Peer> peer = !handed || given || fresh || dead >= 0 || calleeWaits(ctx.module(), e, sc.stream)
                                           ? std::nullopt
                                           : peerWait(ctx.module(), f, sc.stream);
      // Half of the protocol is here: the function joins the side stream after the region (the
      // current stream waits for it), so it orders the two streams itself, yet the side stream
      // never waits for the current one before reading its inputs.
      const long join = !handed || given || fresh || dead >= 0 || peer ? -1 : joinAfter(f, int(r), size_t(first), sc.stream);
      // The stream is made here (this function, or this class for object state) and nothing
      // in that code ever makes it wait: no caller can have ordered a stream it never sees.
      // What it reads must change after construction: an argument, or state some method other
      // than `__init__` writes (for a callee: the state it reads in GPU work).
      const bool changing = e.kind == EventKind::Call
                                ? std::ranges::any_of(stateReadsOf(ctx.module(), e.callee),
                                                      [&](const StateRead& s) {
                                                        return writtenAfterConstruction(ctx.module(), f, s.root, e.callee);
                                                      })
                                : handed;
      const model::Event* owned = !changing || fresh || given || dead >= 0 || peer || join >= 0
                                      ? nullptr
                                      : ownedNeverWaited(ctx.module(), f, int(r));
      // The function's own working stream joins it: that is the stream to wait for.
      if (join >= 0 && f.events[size_t(join)].stream.isSide())
        fix = "call " + waitHint(ctx.module().lang, sc.stream, f.events[size_t(join)].stream) + " before the region";
      if (dead >= 0 && !fresh && ctx.module().lang == model::Lang::Python)
        fix = "call " + (sc.stream.name.empty() ? std::string("the side stream") : sc.stream.name) + ".wait_event(" +
              f.events[size_t(dead)].value + ") before the region";
      // Reported at the region's header, where the missing wait goes (the first use can be far
      // down a long region); the use is a note.
      Finding& out = ctx.report(sc.loc, what + " on " + sc.stream.describe() +
                                           ", but nothing makes that stream wait for the stream its inputs were "
                                           "produced on: it can read them before they are written; " + fix);
      // Measured on 21 projects: the wait is usually done by the caller or a helper, so these
      // are shown only with --min-confidence low; not for a stream created in the header, nor
      // for the inputs autograd or a module call hands over (producedByCaller).
      out.properties["confidence"] = fresh || given || dead >= 0 || peer || join >= 0 || owned ? "medium" : "low";
      if (owned)
        ctx.note(out, owned->loc,
                 owned->kind == EventKind::Call
                     ? sc.stream.describe() + " comes from `" + owned->callee +
                           "()`, which makes it, and nothing in this module ever makes it wait"
                     : sc.stream.describe() + " is created here, and nothing in " +
                           (stateRoot(f, sc.stream.name).empty() ? methodName(f) : std::string("its class")) +
                           " ever makes it wait");
      if (join >= 0)
        ctx.note(out, f.events[size_t(join)].loc, "the function joins " + sc.stream.describe() +
                                                      " here, after the region, but never makes it wait before");
      if (peer)
        ctx.note(out, peer->wait->loc, methodName(*peer->fn) + " makes " + sc.stream.describe() +
                                           " wait here before its region; the region above has no such wait");
      if (dead >= 0)
        ctx.note(out, f.events[size_t(dead)].loc,
                 "'" + f.events[size_t(dead)].value + "' is recorded on " + f.events[size_t(dead)].stream.describe() +
                     " here, but nothing ever waits on it: the wait it was recorded for is missing");
      if (given)
        ctx.note(out, f.loc, "'" + *given + "' is an argument of " + methodName(f) + " (" + f.hot +
                                 "): it was produced on the caller's current stream when the call was made");
      ctx.note(out, e.loc, "the region's first GPU work on its inputs" +
                               std::string(fresh ? ", on a stream created in the region's header: nothing can have made "
                                                   "it wait for the inputs' stream"
                                                 : ""));
    }
  }

  struct Peer {
    const model::Function* fn;
    const model::Event* wait;
  };
  // A wait by stream `s` (by its name: `self.comm`, a module's stream) that another function of
  // the module issues before a region on `s`; nullopt when there is none. Waits inside a
  // side-stream region do not count (they order later work), nor a host sync (it is not the
  // stream's protocol).
  static std::optional<Peer> peerWait(const model::Module& m, const model::Function& self, const model::StreamRef& s) {
    if (s.kind != model::StreamKind::Side || s.name.empty()) return std::nullopt;
    for (const auto& g : m.functions) {
      if (&g == &self) continue;
      for (size_t k = 0; k < g.events.size(); ++k) {
        const auto& w = g.events[k];
        if (w.kind != EventKind::Wait || !sameStream(w.stream, s) || model::enclosingSideRegion(g, w.scope) >= 0) continue;
        for (size_t r = 0; r < g.scopes.size(); ++r)
          if (g.scopes[r].kind == model::ScopeKind::StreamRegion && sameStream(g.scopes[r].stream, s) &&
              g.scopes[r].loc.line > w.loc.line)
            return Peer{&g, &w};
      }
    }
    return std::nullopt;
  }

  // The StreamCreate that made region `r`'s stream, when this function made it (a local) or
  // a method of its class did (object state), and no function there ever makes that stream
  // wait; nullptr otherwise.
  static const model::Event* ownedNeverWaited(const model::Module& m, const model::Function& f, int r) {
    const model::StreamRef& s = f.scopes[size_t(r)].stream;
    if (s.name.empty()) return nullptr;
    if (auto it = f.streamFrom.find(s.name); it != f.streamFrom.end()) return cachedNeverWaited(m, f, it->second);
    const bool state = !stateRoot(f, s.name).empty();
    const std::string cls = classOf(f.name);
    if (state && cls.empty()) return nullptr;
    const model::Event* created = nullptr;
    for (const auto& g : m.functions) {
      if (state ? !g.name.starts_with(cls + ".") : &g != &f) continue;
      for (const auto& e : g.events) {
        if (e.kind == EventKind::Wait && e.stream.name == s.name) return nullptr;
        if (e.kind == EventKind::StreamCreate && e.value == s.name && !created) created = &e;
      }
    }
    return created;
  }

  // The call of `maker`, a module function that returns a stream it made or keeps (made once and
  // cached: `side_stream()`), that gave `f` its local, when no function of the module ever makes
  // that stream wait under any local bound from `maker()`; nullptr otherwise. (The maker's body
  // may not be lowered: its being a stream maker is what the frontend knows of it.)
  static const model::Event* cachedNeverWaited(const model::Module& m, const model::Function& f,
                                               const std::string& maker) {
    std::string cached;  // the name the maker keeps it under (`_SIDE`), when its body is lowered
    if (const model::Function* g = m.find(maker))
      for (const auto& e : g->events)
        if (e.kind == EventKind::StreamCreate && cached.empty()) cached = e.value;
    for (const auto& h : m.functions)
      for (const auto& e : h.events) {
        if (e.kind != EventKind::Wait) continue;
        auto it = h.streamFrom.find(e.stream.name);
        if ((it != h.streamFrom.end() && it->second == maker) || (!cached.empty() && e.stream.name == cached))
          return nullptr;
      }
    for (const auto& e : f.events)
      if (e.kind == EventKind::Call && e.callee == maker) return &e;
    return nullptr;
  }

  // Object state `root` that a method of `f`'s class other than `__init__` writes, off side
  // streams (what the side stream's own work writes is no input it must wait for):
  // `runsOnSide` is the callee the region runs: its writes are the side stream's too.
  static bool writtenAfterConstruction(const model::Module& m, const model::Function& f, const std::string& root,
                                       const std::string& runsOnSide) {
    const std::string cls = classOf(f.name);
    if (cls.empty()) return false;
    for (const auto& g : m.functions) {
      if (!g.name.starts_with(cls + ".") || g.name == cls + ".__init__" || g.name == runsOnSide) continue;
      for (const auto& e : g.events)
        if (!e.stream.isSide() && writesState(g, e, root)) return true;
    }
    return false;
  }

  // Object state made once by the class's `__init__` (`self.mean = torch.tensor(...).cuda()`)
  // and written by no other function: set-up done long before any region runs, not data
  // handed over per step.
  static bool constructorConstant(const model::Module& m, const model::Function& f, const std::string& root) {
    const std::string cls = classOf(f.name);
    if (cls.empty()) return false;
    const std::string ctor = cls + ".__init__";
    bool inCtor = false;
    for (const auto& g : m.functions)
      for (const auto& e : g.events) {
        if (!writesState(g, e, root)) continue;
        if (g.name != ctor) return false;
        inCtor = true;
      }
    return inCtor;
  }

  // Index of a wait, after region `r` and outside it, of the current stream for `s` (the join
  // `current_stream().wait_stream(s)`), or -1. One side stream waiting for another
  // (`intra.wait_stream(inter)` on streams handed in) chains streams the caller orders, unless
  // the waiter is the stream this function works on itself: it entered a region of its own on
  // it before region `r` (`with torch.cuda.stream(compute_stream):` then the join
  // `compute_stream.wait_stream(ag_stream)`).
  static long joinAfter(const model::Function& f, int r, size_t first, const model::StreamRef& s) {
    auto worksOn = [&](const model::StreamRef& w) {
      return std::any_of(f.scopes.begin(), f.scopes.end(), [&](const model::Scope& sc) {
        return sc.kind == model::ScopeKind::StreamRegion && !sc.handedStream && sameStream(sc.stream, w) &&
               sc.loc.line < f.scopes[size_t(r)].loc.line;
      });
    };
    for (size_t k = first + 1; k < f.events.size(); ++k) {
      const auto& w = f.events[k];
      if (w.kind == EventKind::Wait && !model::scopeWithin(f, w.scope, r) && sameStream(w.other, s) &&
          (!w.stream.isSide() || worksOn(w.stream)))
        return long(k);
    }
    return -1;
  }

  // `e` calls a function of the module that makes stream `s` wait itself (at its top, before
  // its work): the protocol's wait is in the callee.
  static bool calleeWaits(const model::Module& m, const model::Event& e, const model::StreamRef& s) {
    const model::Function* g = e.kind == EventKind::Call ? m.find(e.callee) : nullptr;
    return g && std::any_of(g->events.begin(), g->events.end(), [&](const model::Event& w) {
             return w.kind == EventKind::Wait && sameStream(w.stream, s);
           });
  }

  // An event recorded on another stream before `use` that nothing waits on, synchronizes or
  // hands on (in this function, or in any method of its class for object state): the code
  // records it to order the side stream after that stream, and the wait is missing. Index of
  // the record, or -1.
  static long deadRecordBefore(const model::Module& m, const model::Function& f, size_t use,
                               const model::StreamRef& side) {
    for (size_t k = use; k-- > 0;) {
      const auto& r = f.events[k];
      if (r.kind != EventKind::EventRecord || r.value.empty() || sameStream(r.stream, side)) continue;
      // Object state is judged over the class's methods; a local handed elsewhere is not ours.
      const std::string root = stateRoot(f, r.value);
      if (root.empty() && (std::find(f.escaped.begin(), f.escaped.end(), r.value) != f.escaped.end() ||
                           std::find(f.returned.begin(), f.returned.end(), r.value) != f.returned.end()))
        continue;
      const std::string cls = classOf(f.name);
      bool used = false;
      for (const auto& g : m.functions) {
        if (&g != &f && (root.empty() || cls.empty() || !g.name.starts_with(cls + "."))) continue;
        for (const auto& e : g.events) {
          const bool touches = e.value == r.value || (!root.empty() && stateRoot(g, e.value) == root);
          used |= touches && (e.kind == EventKind::Wait || e.kind == EventKind::HostSync || e.kind == EventKind::Call);
        }
      }
      if (!used) return long(k);
    }
    return -1;
  }

  // A value read by the region's GPU work that an autograd.Function's forward/backward, an nn.Module's forward or
  // a registered hook is handed as an argument: autograd and the module call produce it on the
  // stream current at the call (the op's inputs, the incoming gradients, the hooked tensors), so
  // a side stream that reads it must wait for that stream first. nullptr when none.
  // Looked for in the region's GPU work from its first use (`first`) on.
  static const std::string* producedByCaller(const model::Function& f, int region, size_t first) {
    if (!handedOverInputs(f)) return nullptr;
    for (size_t i = first; i < f.events.size(); ++i) {
      const auto& e = f.events[i];
      if (!model::scopeWithin(f, e.scope, region)) continue;
      if (e.kind == EventKind::Wait) return nullptr;  // ordered from here on
      if (e.kind != EventKind::Work && e.kind != EventKind::Copy && e.kind != EventKind::Backward) continue;
      for (const auto& v : e.reads)
        if (producerOf(f, v, i) < 0 && !parameterRoot(f, v).empty()) return &v;
    }
    return nullptr;
  }

  // The region calls a method of this class that reads object state (`self.store`, directly
  // or through a local taken from it) in GPU work, and this function wrote that state on the
  // current stream before the region with no wait: the cross-method form of the use above
  // (`p = self.store.get(g); p.copy_(master)`, then `with stream(self.comm): self.broadcast()`).
  // Medium confidence: the state is used by GPU work on a side stream, so it is on the GPU.
  static bool stateWrittenBeforeCall(RuleContext& ctx, const model::Function& f, int r,
                                     const std::set<size_t>& reported) {
    const auto& sc = f.scopes[size_t(r)];
    auto w = stateWriteBeforeCall(ctx.module(), f, r, [&](size_t call) {
      return reported.count(call) || waitedBefore(f, call, sc.stream);
    });
    if (!w) return false;
    const auto& e = f.events[w->call];
    const auto& p = f.events[w->producer];
    Finding& out = ctx.report(e.loc, "'" + e.callee + "()' reads '" + w->root + "' on " + sc.stream.describe() +
                                         ", but it was written on " + p.stream.describe() +
                                         " before the region with no wait in between: the side stream can read it "
                                         "before it is written; call " +
                                         waitHint(ctx.module().lang, sc.stream, p.stream) + " before the region");
    out.properties["confidence"] = "medium";
    ctx.note(out, p.loc, "'" + w->root + "' written on " + p.stream.describe() + " here");
    ctx.note(out, w->read->loc, "read by GPU work in the callee here");
    ctx.note(out, sc.loc, "side-stream region starts here");
    return true;
  }

  static bool waitedBefore(const model::Function& f, size_t use, const model::StreamRef& s) {
    for (size_t k = 0; k < use; ++k) {
      const auto& w = f.events[k];
      // A stream we cannot name may be this one; two different names (`ctx.intra_stream`,
      // `ctx.inter_stream`) are two streams.
      const bool maybeSame = w.stream.kind == model::StreamKind::Unknown && (w.stream.name.empty() || s.name.empty());
      if (w.kind == EventKind::Wait && (sameStream(w.stream, s) || maybeSame)) return true;
      // A host sync (device, stream, value read, blocking copy) drains the current stream's work
      // before the host goes on to queue the region's work; a value read or a stream sync on a
      // side stream (`.item()` inside another region) drains that stream only.
      // (Only a sync we are sure of: a guessed one would hide the finding.)
      const bool onSide = w.stream.isSide() && w.sync != model::SyncKind::Device && w.sync != model::SyncKind::Event;
      if (w.kind == EventKind::HostSync && w.sync != model::SyncKind::Allocation &&
          w.confidence != model::Confidence::Low && !onSide)
        return true;
    }
    return false;
  }

 private:
  // The stream is picked from a container per iteration (`with stream(streams[i % 2])`, where
  // `streams = [current_stream(), side]`): which stream runs the work is not known, and after
  // the producer some stream was made to wait for the producer's stream — the container's
  // side stream, as far as can be told. Claiming a missing wait would be a guess
  // (bench/precision: the ring-attention shape, judged wrong).
  static bool pickedAfterAWait(const model::Function& f, size_t p, size_t use, const model::StreamRef& s,
                               const model::StreamRef& producer) {
    if (s.name.find('[') == std::string::npos) return false;
    return anyWait(f, p, use, [&](size_t k) {
      const auto& w = f.events[k];
      return w.kind == EventKind::Wait && w.value.empty() && sameStream(w.other, producer);
    });
  }

  // A wait by the user's stream that runs whenever the producer ran: after it, in a scope that
  // encloses the producer's (`if (sync) { cudaMemcpy(...); }` on the legacy stream, then
  // a blocking stream's implicit wait in the same branch), before the use.
  static bool waitFollowsProducer(const model::Function& f, size_t p, size_t use, const model::StreamRef& waiter,
                                  const model::StreamRef& producer) {
    return anyWait(f, p, use, [&](size_t k) {
      const auto& w = f.events[k];
      if (w.kind != EventKind::Wait || !sameStream(w.stream, waiter)) return false;
      if (w.value.empty() && w.other.kind != model::StreamKind::Unknown && !sameStream(w.other, producer)) return false;
      return model::scopeWithin(f, f.events[p].scope, w.scope);
    });
  }

  // Whether `fn` holds for an event in (from, to), tried in order; only waits can hold, so
  // with the index only they are tried.
  template <class Fn>
  static bool anyWait(const model::Function& f, size_t from, size_t to, const Fn& fn) {
    if (const EventIndex* ix = eventIndex(f)) return anyBetween(ix->waits, from, to, fn);
    for (size_t k = from + 1; k < to; ++k)
      if (fn(k)) return true;
    return false;
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL101() { return std::make_unique<SideStreamUseWithoutWait>(); }

}  // namespace sl::rules
