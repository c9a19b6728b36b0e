#include "rules/RuleHelpers.h"

#include <algorithm>

#include "rules/EventIndex.h"

namespace sl::rules {

using model::EventKind;
using model::StreamKind;

static long directProducerOf(const model::Function& f, const std::string& value, size_t before);

long producerOf(const model::Function& f, const std::string& value, size_t before) {
  long p = directProducerOf(f, value, before);
  // A part of a local (`for x in xs:`, `x = xs[i]`) was made where the local was.
  std::string v = value;
  for (int depth = 0; p < 0 && depth < 8; ++depth) {
    auto it = f.partOf.find(v.substr(0, v.find_first_of(".[")));
    if (it == f.partOf.end()) break;
    v = it->second;
    p = directProducerOf(f, v, before);
  }
  return p;
}

static long directProducerOf(const model::Function& f, const std::string& value, size_t before) {
  // A producer on a branch that cannot reach `before` (the other arm of an if, a branch
  // that returned) did not produce what is used there.
  auto reaches = [&](size_t i) { return before >= f.events.size() || model::mayFollow(f, i, before); };
  const size_t end = std::min(before, f.events.size());
  if (const EventIndex* ix = eventIndex(f)) {
    auto it = ix->producers.find(value);
    if (it == ix->producers.end()) return -1;
    const std::vector<uint32_t>& at = it->second;
    for (auto k = std::lower_bound(at.begin(), at.end(), end); k != at.begin();)
      if (reaches(*--k)) return long(*k);
    return -1;
  }
  for (size_t i = end; i-- > 0;) {
    const auto& e = f.events[i];
    if (!reaches(i)) continue;
    bool writes = std::find(e.writes.begin(), e.writes.end(), value) != e.writes.end();
    if (writes || ((e.kind == EventKind::Alloc || e.kind == EventKind::Copy) && e.value == value))
      return long(i);
  }
  return -1;
}

bool handedOverInputs(const model::Function& f) {
  if (f.hot.empty() || f.hotViaCaller) return false;
  return f.hot.starts_with("autograd.Function.") || f.hot == "nn.Module.forward" ||
         f.hot.starts_with("a hook registered");
}

std::string parameterRoot(const model::Function& f, const std::string& path) {
  std::string head = path.substr(0, path.find_first_of(".["));
  if (head == "self" || head == "ctx") return "";
  if (std::find(f.params.begin(), f.params.end(), head) != f.params.end()) return head;
  auto it = f.argOf.find(head);  // a part or view of an argument (`for p in params:`)
  return it == f.argOf.end() ? "" : it->second;
}

bool sameStream(const model::StreamRef& a, const model::StreamRef& b) {
  auto norm = [](StreamKind k) { return k == StreamKind::Default ? StreamKind::Current : k; };
  return norm(a.kind) == norm(b.kind) && a.name == b.name;
}

bool orderedBetween(const model::Function& f, size_t from, size_t to, const model::StreamRef& waiter,
                    const model::StreamRef& producer) {
  auto orders = [&](size_t i) {
    const auto& e = f.events[i];
    // `to` past the last event means "by the end of the function": only code that runs whenever
    // the producer ran counts: unconditional code, or (no flow graph) code after the producer in
    // a scope that holds it (the join after a region under `if`), or later in the same loop
    // iteration (a prefetch loop's wait after the region, also under the branch that tests for
    // the stream: `if stream is not None: current_stream().wait_stream(stream)`).
    const int loop = model::enclosingScope(f, f.events[from].scope, model::ScopeKind::Loop);
    const bool afterProducer = f.flow.empty() && i > from &&
                               (model::scopeWithin(f, f.events[from].scope, f.events[i].scope) ||
                                (loop >= 0 && model::scopeWithin(f, f.events[i].scope, loop)));
    if (to < f.events.size() ? !model::dominates(f, i, to) : !model::alwaysRuns(f, i) && !afterProducer) return false;
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
    // A wait for a stream we cannot name may be for the producer; two different names
    // (`ctx.intra_stream`, `ctx.inter_stream`) are two streams.
    const bool maybeProducer = e.other.kind == StreamKind::Unknown && (e.other.name.empty() || producer.name.empty() ||
                                                                        e.other.name == producer.name);
    return e.kind == EventKind::Wait && sameStream(e.stream, waiter) &&
           (!e.value.empty() || maybeProducer || sameStream(e.other, producer));
  };
  // Only host syncs and waits can order the streams: the index lists just those.
  const size_t end = std::min(to, f.events.size());
  if (const EventIndex* ix = eventIndex(f)) return anyBetween(ix->orderings, from, end, orders);
  for (size_t i = from + 1; i < end; ++i)
    if (orders(i)) return true;
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
  if (lang != model::Lang::Cpp) {
    auto spellPy = [](const model::StreamRef& s, const char* unnamed) {
      if (!s.isSide()) return std::string("torch.cuda.current_stream()");
      return s.name.empty() ? std::string(unnamed) : s.name;
    };
    return spellPy(waiter, "stream") + ".wait_stream(" + spellPy(producer, "<producer stream>") + ")";
  }
  std::string w = spell(lang, waiter, "<consumer stream>"), p = spell(lang, producer, "<producer stream>");
  std::string cuda = "cudaEventRecord(ev, " + p + ") then cudaStreamWaitEvent(" + w + ", ev)";
  auto raw = [](const model::StreamRef& r) { return r.kind == StreamKind::Legacy || r.kind == StreamKind::PerThread; };
  if (raw(waiter) || raw(producer)) return cuda;  // CUDA runtime code: no LibTorch spelling
  return cuda + " (LibTorch: at::cuda::CUDAEvent ev; ev.record(" + p + "); ev.block(" + w + "))";
}

}  // namespace sl::rules
