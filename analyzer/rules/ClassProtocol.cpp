#include "rules/ClassProtocol.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include "rules/ObjectState.h"
#include "rules/RuleHelpers.h"

namespace sl::rules {

using model::EventKind;
using model::StreamKind;

namespace {

constexpr size_t kReturn = size_t(-1);  // Access::event of a `return` of object state

// One read or write of object state by a method, in its order.
struct Access {
  size_t event = kReturn;  // index in the method's events; kReturn for a returned value
  Loc loc;
  std::string root;         // "self.buffer"
  model::StreamRef stream;  // where it runs
  bool write = false;
  bool alloc = false;       // an allocation (the storage is new)
  int region = -1;          // enclosing side-stream region, or -1
  bool assumed = false;     // by assumed work (a module in object state run with its weights)
};

struct Method {
  const model::Function* fn = nullptr;
  std::vector<Access> accesses;
  bool setUp = false;  // `__init__`: see the policy in ClassProtocol.h
};

struct ClassView {
  std::string name;
  std::vector<Method> methods;
};

// A stream the class keeps on `self` counts whatever its origin (a constructor argument
// annotated `torch.cuda.Stream`): the class enters regions on it to move work off the caller's
// stream, and if a caller handed in its current stream there is nothing to order.
bool namedSide(const model::StreamRef& s) {
  return !s.name.empty() && (s.kind == StreamKind::Side || (s.kind == StreamKind::Unknown && s.name.starts_with("self.")));
}
bool onCurrent(const model::StreamRef& s) { return s.kind == StreamKind::Current || s.kind == StreamKind::Default; }

std::vector<Access> accessesOf(const model::Function& f) {
  std::vector<Access> out;
  auto add = [&](size_t i, const std::string& path, bool write, bool alloc) {
    std::string root = stateRoot(f, path);
    if (root.empty()) return;
    const auto& e = f.events[i];
    out.push_back({i, e.loc, std::move(root), e.stream, write, alloc, model::enclosingSideRegion(f, e.scope), e.assumed});
  };
  for (size_t i = 0; i < f.events.size(); ++i) {
    const auto& e = f.events[i];
    switch (e.kind) {
      case EventKind::Work:
      case EventKind::Backward:
        for (const auto& r : e.reads) add(i, r, false, false);
        for (const auto& w : e.writes) add(i, w, true, false);
        break;
      case EventKind::Copy:
        for (const auto& r : e.reads) add(i, r, false, false);
        if (!e.value.empty()) add(i, e.value, true, false);
        break;
      case EventKind::Alloc:
        if (!e.value.empty()) add(i, e.value, true, true);
        break;
      default: break;
    }
  }
  // A returned value is used by the caller, on the caller's (current) stream.
  for (size_t k = 0; k < f.returned.size() && k < f.returnedAt.size(); ++k)
    if (std::string root = stateRoot(f, f.returned[k]); !root.empty())
      out.push_back({kReturn, f.returnedAt[k], std::move(root), model::StreamRef::current(), false, false, -1});
  // What the code does to the state comes first; a guess (assumed work) only where nothing else
  // uses that state: one finding per use site is kept, and it should be the evidence.
  std::stable_partition(out.begin(), out.end(), [](const Access& a) { return !a.assumed; });
  return out;
}

// The classes of a module: "Cls.m" functions whose prefix is not itself a function (a closure
// `f.inner` is not a method of a class `f`).
std::vector<ClassView> classesOf(const model::Module& m) {
  std::set<std::string> functions;
  for (const auto& f : m.functions) functions.insert(f.name);
  std::map<std::string, ClassView> byName;
  for (const auto& f : m.functions) {
    size_t dot = f.name.rfind('.');
    if (dot == std::string::npos || dot == 0) continue;
    std::string cls = f.name.substr(0, dot);
    if (functions.count(cls)) continue;
    Method meth{&f, accessesOf(f), f.name.substr(dot + 1) == "__init__"};
    auto& view = byName[cls];
    view.name = cls;
    view.methods.push_back(std::move(meth));
  }
  std::vector<ClassView> out;
  for (auto& [name, view] : byName)
    if (view.methods.size() > 1) out.push_back(std::move(view));
  return out;
}

bool strongSync(const model::Event& e) {
  return e.kind == EventKind::HostSync && e.sync != model::SyncKind::Allocation &&
         e.confidence != model::Confidence::Low;
}

// Some method of the class makes `waiter` wait for `producer`: a stream wait, an event wait
// (events are matched by no name: any event wait by that stream counts), a device-wide wait, or
// a synchronize of the device, of the producer or of an event.
bool classOrders(const ClassView& c, const model::StreamRef& waiter, const model::StreamRef& producer) {
  for (const auto& meth : c.methods)
    for (const auto& e : meth.fn->events) {
      if (e.kind == EventKind::Wait &&
          (sameStream(e.stream, waiter) || e.stream.kind == StreamKind::Unknown) &&
          (!e.value.empty() || e.other.kind == StreamKind::Unknown || sameStream(e.other, producer)))
        return true;
      if (strongSync(e) && (e.sync == model::SyncKind::Device || e.sync == model::SyncKind::Event ||
                            (e.sync == model::SyncKind::Stream && sameStream(e.stream, producer))))
        return true;
    }
  return false;
}

// The host waited in `f` between events [from, to): a sync we are sure of.
bool syncIn(const model::Function& f, size_t from, size_t to) {
  for (size_t k = from; k < std::min(to, f.events.size()); ++k)
    if (strongSync(f.events[k])) return true;
  return false;
}

// Ordered around the two accesses themselves: the writer synchronizes after its write, or the
// reader before its read.
bool locallyOrdered(const Method& w, const Access& wa, const Method& r, const Access& ra) {
  if (wa.event != kReturn && syncIn(*w.fn, wa.event + 1, w.fn->events.size())) return true;
  return syncIn(*r.fn, 0, ra.event == kReturn ? r.fn->events.size() : ra.event);
}

StatePair pairOf(const ClassView& c, const Method& w, const Access& wa, const Method& r, const Access& ra) {
  StatePair p;
  p.cls = c.name;
  p.root = wa.root;
  p.writer = w.fn, p.writeAt = wa.loc, p.producer = wa.stream;
  p.reader = r.fn, p.readAt = ra.loc, p.consumer = ra.stream;
  p.useWrites = ra.write;
  if (ra.region >= 0) p.regionAt = r.fn->scopes[size_t(ra.region)].loc;
  return p;
}

// For every (writer access, reader access) of one root in two methods that `match` accepts and
// nothing orders, the first such read of each (reader, root): one finding per use site.
template <class Match, class Ordered>
std::vector<StatePair> pairs(const model::Module& m, const Match& match, const Ordered& ordered) {
  std::vector<StatePair> out;
  for (const auto& c : classesOf(m)) {
    std::set<std::pair<const model::Function*, std::string>> seen;
    for (const auto& r : c.methods) {
      if (r.setUp) continue;  // runs before any writer it does not call itself
      for (const auto& ra : r.accesses)
        for (const auto& w : c.methods) {
          if (w.fn == r.fn || seen.count({r.fn, ra.root})) continue;
          for (const auto& wa : w.accesses) {
            if (!wa.write || wa.root != ra.root || !match(w, wa, r, ra)) continue;
            if (ordered(c, wa, ra) || locallyOrdered(w, wa, r, ra)) continue;
            out.push_back(pairOf(c, w, wa, r, ra));
            seen.insert({r.fn, ra.root});
            break;
          }
        }
    }
  }
  return out;
}

}  // namespace

std::string methodName(const model::Function& f) {
  return "`" + f.name.substr(f.name.rfind('.') + 1) + "()`";
}

std::vector<StatePair> unjoinedStateReads(const model::Module& m) {
  return pairs(
      m,
      [](const Method&, const Access& wa, const Method&, const Access& ra) {
        return namedSide(wa.stream) && onCurrent(ra.stream) && ra.region < 0;
      },
      [](const ClassView& c, const Access& wa, const Access& ra) { return classOrders(c, ra.stream, wa.stream); });
}

std::vector<StatePair> unwaitedStateUses(const model::Module& m) {
  return pairs(
      m,
      [](const Method& w, const Access& wa, const Method&, const Access& ra) {
        return !w.setUp && onCurrent(wa.stream) && namedSide(ra.stream) && ra.event != kReturn;
      },
      [](const ClassView& c, const Access& wa, const Access& ra) { return classOrders(c, ra.stream, wa.stream); });
}

std::vector<StatePair> unrecordedStateUses(const model::Module& m) {
  // Roots some method records (`t.record_stream(...)`, directly or through a local taken from
  // object state), per class.
  std::map<std::string, std::unordered_set<std::string>> recorded;
  for (const auto& f : m.functions) {
    size_t dot = f.name.rfind('.');
    if (dot == std::string::npos) continue;
    for (const auto& e : f.events)
      if (e.kind == EventKind::RecordStream)
        if (std::string root = stateRoot(f, e.value); !root.empty()) recorded[f.name.substr(0, dot)].insert(root);
  }
  return pairs(
      m,
      [](const Method& w, const Access& wa, const Method&, const Access& ra) {
        return !w.setUp && wa.alloc && namedSide(wa.stream) && !sameStream(wa.stream, ra.stream) &&
               (onCurrent(ra.stream) || namedSide(ra.stream));
      },
      [&](const ClassView& c, const Access& wa, const Access& ra) {
        auto it = recorded.find(c.name);
        if (it != recorded.end() && it->second.count(wa.root)) return true;
        // The allocating stream waits for the user's before it allocates again: the block is
        // only reused by work queued after the use (the other fix of the same hazard).
        return classOrders(c, wa.stream, ra.stream);
      });
}

}  // namespace sl::rules
