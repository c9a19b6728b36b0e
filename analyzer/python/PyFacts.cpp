// CUDA values and the reasons they are CUDA: every CUDA fact carries a confidence and a chain
// of evidence, and every event it touches is stamped with both, so a finding can say *why*.
#include <algorithm>

#include "python/PyLowering.h"

namespace sl::py {

WhyPtr because(WhyPtr prev, Loc loc, std::string text) {
  return std::make_shared<const Why>(Why{model::Evidence{loc, std::move(text)}, std::move(prev)});
}

std::vector<model::Evidence> chainOf(const WhyPtr& w, size_t max) {
  std::vector<model::Evidence> out;
  for (const Why* p = w.get(); p && out.size() < max; p = p->prev.get()) out.push_back(p->ev);
  std::reverse(out.begin(), out.end());
  return out;
}

Value Lowerer::cudaNew(TSNode at, std::string why, model::Confidence c) {
  Value v;
  v.fact.kind = Kind::CudaTensor;
  v.fact.local = true;
  v.fact.conf = c;
  v.fact.why = because(nullptr, locOf(at), std::move(why));
  return v;
}

// The result of an operation on a CUDA value: a fresh local tensor, as sure as its origin.
Value Lowerer::cudaFrom(const Fact& origin) {
  Value v;
  v.fact.kind = Kind::CudaTensor;
  v.fact.local = true;
  v.fact.conf = origin.conf;
  v.fact.why = origin.why;
  return v;
}

const Fact* Lowerer::strongestCuda(const std::vector<Value>& vs) {
  const Fact* best = nullptr;
  for (const auto& v : vs)
    if (v.fact.kind == Kind::CudaTensor && (!best || v.fact.conf > best->conf)) best = &v.fact;
  return best;
}

model::Confidence Lowerer::deviceConfidence(const Arg* d) {
  return d && d->value.fact.kind == Kind::CudaDevice ? d->value.fact.conf : model::Confidence::High;
}

void Lowerer::stamp(model::Event& e, const Fact& f) {
  e.confidence = f.conf;
  e.evidence = chainOf(f.why);
}

}  // namespace sl::py
