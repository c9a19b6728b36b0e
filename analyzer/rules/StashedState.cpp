#include "rules/StashedState.h"

#include <algorithm>
#include <optional>
#include <set>

#include "rules/ObjectState.h"
#include "rules/RuleHelpers.h"

namespace sl::rules {
namespace {

using model::EventKind;

struct Lifetime {
  model::StreamRef allocated, used;
  Loc useAt;
  bool handedOut = false;
};

bool reads(const model::Event& e, const std::string& v) {
  return std::find(e.reads.begin(), e.reads.end(), v) != e.reads.end();
}

// A method of the class `cls` (a "Name." prefix) makes the current stream wait for `side`.
bool classJoins(const model::Module& m, const std::string& cls, const model::StreamRef& side) {
  for (const auto& g : m.functions) {
    if (!g.name.starts_with(cls)) continue;
    for (const auto& e : g.events)
      if (e.kind == EventKind::Wait && !e.stream.isSide() && sameStream(e.other, side)) return true;
  }
  return false;
}

// The streams `st.value` is allocated and used on, from the events of `f` before the store;
// nullopt when it lives on one stream only, or when `f` records it for the other stream.
std::optional<Lifetime> lifetimeOf(const model::Module& m, const model::Function& f, const std::string& cls,
                                   const model::Function::Stash& st) {
  const size_t end = std::min(st.before, f.events.size());
  for (size_t k = 0; k < end; ++k)
    if (f.events[k].kind == EventKind::RecordStream && f.events[k].value == st.value) return std::nullopt;
  const bool argument = !parameterRoot(f, st.value).empty();
  for (size_t k = 0; k < end; ++k) {
    const auto& e = f.events[k];
    if ((e.kind != EventKind::Work && e.kind != EventKind::Copy) || !reads(e, st.value) ||
        model::exclusiveScopes(f, e.scope, st.scope))
      continue;
    // The value this use reads: made by the producer before it on every path, else (an
    // argument rebound on some paths only: `if strided: t = t.clone()`) the caller's, made on
    // the stream current at the call.
    long p = producerOf(f, st.value, k);
    model::StreamRef allocated = p >= 0 && (model::dominates(f, size_t(p), k) || !argument)
                                     ? f.events[size_t(p)].stream
                                     : model::StreamRef::current();
    if (!sameStream(e.stream, allocated)) return Lifetime{allocated, e.stream, e.loc};
  }
  // Made on a side stream and handed to the caller, who works on its current stream; or kept
  // for the class's own consumer: the class joins that stream into the current one (a prefetch
  // into `self.gpu_params[name]`, used by the next forward).
  long p = producerOf(f, st.value, end);
  if (p < 0 || !f.events[size_t(p)].stream.isSide()) return std::nullopt;
  const auto& prod = f.events[size_t(p)];
  const bool returned = std::find(f.returned.begin(), f.returned.end(), st.value) != f.returned.end();
  if (returned || classJoins(m, cls, prod.stream)) return Lifetime{prod.stream, model::StreamRef::current(), prod.loc, true};
  return std::nullopt;
}

bool entryOf(const std::string& value, const std::string& root) {
  return value.size() > root.size() && value.starts_with(root) && value[root.size()] == '[';
}

// Before event `k` of `g`: the allocating stream waits (for an event, or a stream), the host
// synchronizes, or something taken from the stash is recorded for another stream.
bool orderedBefore(const model::Function& g, size_t k, const model::StreamRef& allocated, const std::string& root) {
  for (size_t j = 0; j < k; ++j) {
    const auto& e = g.events[j];
    if (e.kind == EventKind::Wait && sameStream(e.stream, allocated)) return true;
    if (e.kind == EventKind::HostSync && e.confidence != model::Confidence::Low &&
        (e.sync == model::SyncKind::Device || e.sync == model::SyncKind::Stream || e.sync == model::SyncKind::Event))
      return true;
    // A record orders the entry it names only: one on every path to the `del`.
    if (e.kind == EventKind::RecordStream && stateRoot(g, e.value) == root && model::dominates(g, j, k))
      return true;
  }
  return false;
}

}  // namespace

std::vector<EarlyRelease> earlyStashReleases(const model::Module& m) {
  std::vector<EarlyRelease> out;
  std::set<std::pair<const model::Function*, size_t>> seen;
  for (const auto& f : m.functions)
    for (const auto& st : f.stashes) {
      // The class the storing method belongs to: its methods, hooks and closures share `self`.
      const std::string cls = f.name.substr(0, f.name.find('.')) + ".";
      std::optional<Lifetime> life = lifetimeOf(m, f, cls, st);
      if (!life) continue;
      for (const auto& g : m.functions) {
        if (!g.name.starts_with(cls)) continue;
        for (size_t k = 0; k < g.events.size(); ++k) {
          const auto& e = g.events[k];
          if (e.kind != EventKind::Free || !entryOf(e.value, st.root)) continue;
          if (orderedBefore(g, k, life->allocated, st.root) || !seen.insert({&g, k}).second) continue;
          out.push_back({&f, &st, life->useAt, life->handedOut, life->allocated, life->used, &g, e.loc});
        }
      }
    }
  return out;
}

}  // namespace sl::rules
