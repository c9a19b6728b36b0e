#include "rules/RuleHelpers.h"

#include <algorithm>

namespace sl::rules {

using model::EventKind;
using model::StreamKind;

long producerOf(const model::Function& f, const std::string& value, size_t before) {
  for (size_t i = std::min(before, f.events.size()); i-- > 0;) {
    const auto& e = f.events[i];
    bool writes = std::find(e.writes.begin(), e.writes.end(), value) != e.writes.end();
    if (writes || ((e.kind == EventKind::Alloc || e.kind == EventKind::Copy) && e.value == value))
      return long(i);
  }
  return -1;
}

bool sameStream(const model::StreamRef& a, const model::StreamRef& b) {
  auto norm = [](StreamKind k) { return k == StreamKind::Default ? StreamKind::Current : k; };
  return norm(a.kind) == norm(b.kind) && a.name == b.name;
}

bool orderedBetween(const model::Function& f, size_t from, size_t to, const model::StreamRef& waiter,
                    const model::StreamRef& producer) {
  for (size_t i = from + 1; i < to && i < f.events.size(); ++i) {
    const auto& e = f.events[i];
    // `to` past the last event means "by the end of the function": only unconditional code counts.
    if (to < f.events.size() ? !model::dominates(f, i, to) : e.scope != 0) continue;
    // A blocking copy or a value read synchronizes the stream it runs on: if that is the
    // producer's, the host has waited for the producer before queuing anything after.
    bool drainsProducer = (e.sync == model::SyncKind::Stream || e.sync == model::SyncKind::BlockingCopy ||
                           e.sync == model::SyncKind::ValueRead) &&
                          sameStream(e.stream, producer) && e.confidence != model::Confidence::Low;
    if (e.kind == EventKind::HostSync &&
        (e.sync == model::SyncKind::Device || e.sync == model::SyncKind::Event || drainsProducer))
      return true;
    if (e.kind == EventKind::Wait && sameStream(e.stream, waiter) &&
        (!e.value.empty() || e.other.kind == StreamKind::Unknown || sameStream(e.other, producer)))
      return true;
  }
  return false;
}

}  // namespace sl::rules
