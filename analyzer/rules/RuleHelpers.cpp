#include "rules/RuleHelpers.h"

#include <algorithm>

namespace sl::rules {

using model::EventKind;
using model::StreamKind;

long producerOf(const model::Function& f, const std::string& value, size_t before) {
  for (size_t i = std::min(before, f.events.size()); i-- > 0;) {
    const auto& e = f.events[i];
    // A producer on a branch that cannot reach `before` (the other arm of an if, a branch
    // that returned) did not produce what is used there.
    if (before < f.events.size() && !model::mayFollow(f, i, before)) continue;
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
    if (to < f.events.size() ? !model::dominates(f, i, to) : !model::alwaysRuns(f, i)) continue;
    // A blocking copy or a value read synchronizes the stream it runs on: if that is the
    // producer's, the host has waited for the producer before queuing anything after.
    bool drainsProducer = (e.sync == model::SyncKind::Stream || e.sync == model::SyncKind::BlockingCopy ||
                           e.sync == model::SyncKind::ValueRead) &&
                          sameStream(e.stream, producer) && e.confidence != model::Confidence::Low;
    if (e.kind == EventKind::HostSync &&
        (e.sync == model::SyncKind::Device || e.sync == model::SyncKind::Event || drainsProducer))
      return true;
    // A synchronous cudaMemcpy runs on the default stream and returns only after the work
    // queued there before it (pageable host-to-device copies sync the stream before starting).
    if (e.kind == EventKind::HostSync && e.sync == model::SyncKind::BlockingCopy &&
        (producer.kind == StreamKind::Legacy || producer.kind == StreamKind::PerThread))
      return true;
    if (e.kind == EventKind::Wait && sameStream(e.stream, waiter) &&
        (!e.value.empty() || e.other.kind == StreamKind::Unknown || sameStream(e.other, producer)))
      return true;
  }
  return false;
}

namespace {

// How code names a stream in a hint: its variable, else what the model knows of it.
std::string spell(model::Lang lang, const model::StreamRef& s, const char* placeholder) {
  if (!s.name.empty()) return s.name;
  switch (s.kind) {
    case StreamKind::Current:
    case StreamKind::Default:
      return lang == model::Lang::Cpp ? "at::cuda::getCurrentCUDAStream()" : "torch.cuda.current_stream()";
    case StreamKind::Legacy: return "cudaStreamLegacy";
    case StreamKind::PerThread: return "cudaStreamPerThread";
    default: return placeholder;
  }
}

}  // namespace

std::string waitHint(model::Lang lang, const model::StreamRef& waiter, const model::StreamRef& producer) {
  if (lang != model::Lang::Cpp)
    return (waiter.name.empty() ? std::string("stream") : waiter.name) +
           (producer.kind == StreamKind::Current ? ".wait_stream(torch.cuda.current_stream())"
                                                 : ".wait_stream(<producer stream>)");
  std::string w = spell(lang, waiter, "<consumer stream>"), p = spell(lang, producer, "<producer stream>");
  std::string cuda = "cudaEventRecord(ev, " + p + ") then cudaStreamWaitEvent(" + w + ", ev)";
  auto raw = [](const model::StreamRef& r) { return r.kind == StreamKind::Legacy || r.kind == StreamKind::PerThread; };
  if (raw(waiter) || raw(producer)) return cuda;  // CUDA runtime code: no LibTorch spelling
  return cuda + " (LibTorch: at::cuda::CUDAEvent ev; ev.record(" + p + "); ev.block(" + w + "))";
}

}  // namespace sl::rules
