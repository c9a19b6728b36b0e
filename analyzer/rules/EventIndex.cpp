#include "rules/EventIndex.h"

#include <memory>

namespace sl::rules {
namespace {

thread_local EventIndexScope::Cache* active = nullptr;

uint64_t key(Loc l) { return uint64_t(l.line) << 32 | l.col; }

}  // namespace

struct EventIndexScope::Cache {
  std::unordered_map<const model::Function*, std::unique_ptr<EventIndex>> functions;
  std::unordered_map<const model::Module*, std::unordered_map<uint64_t, std::vector<const model::Event*>>> locs;
};

EventIndexScope::EventIndexScope() : cache_(new Cache), saved_(active) { active = cache_; }

EventIndexScope::~EventIndexScope() {
  active = saved_;
  delete cache_;
}

const EventIndex* eventIndex(const model::Function& f) {
  if (!active) return nullptr;
  std::unique_ptr<EventIndex>& slot = active->functions[&f];
  if (slot) return slot.get();
  slot = std::make_unique<EventIndex>();
  EventIndex& ix = *slot;
  for (uint32_t i = 0; i < f.events.size(); ++i) {
    const model::Event& e = f.events[i];
    auto produced = [&](std::string_view v) {
      std::vector<uint32_t>& at = ix.producers[v];
      if (at.empty() || at.back() != i) at.push_back(i);
    };
    for (const auto& w : e.writes) produced(w);
    if (e.kind == model::EventKind::Alloc || e.kind == model::EventKind::Copy) produced(e.value);
    if (e.kind == model::EventKind::Free) ix.frees[e.value].push_back(i);
    if (e.kind == model::EventKind::RecordStream) ix.recorded.insert(e.value);
    if (e.kind == model::EventKind::HostSync || e.kind == model::EventKind::Wait) ix.orderings.push_back(i);
    if (e.kind == model::EventKind::Wait) ix.waits.push_back(i);
  }
  return slot.get();
}

const std::vector<const model::Event*>* eventsAt(const model::Module& m, Loc loc) {
  if (!active) return nullptr;
  auto [it, fresh] = active->locs.try_emplace(&m);
  if (fresh)
    for (const auto& fn : m.functions)
      for (const auto& e : fn.events) it->second[key(e.loc)].push_back(&e);
  static const std::vector<const model::Event*> none;
  auto at = it->second.find(key(loc));
  return at == it->second.end() ? &none : &at->second;
}

}  // namespace sl::rules
