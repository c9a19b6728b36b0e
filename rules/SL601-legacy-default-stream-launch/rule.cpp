// SL601 legacy-default-stream-launch: see rule.md.
#include "rules/Rule.h"

namespace sl::rules {
namespace {

using model::EventKind;
using model::StreamKind;

// GPU work a frontend attributes to a stream named at the call (a launch, an async copy).
bool issuesGpuWork(const model::Event& e) {
  return e.kind == EventKind::Work || (e.kind == EventKind::Copy && e.nonBlocking);
}

class LegacyDefaultStreamLaunch : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    const model::Module& m = ctx.module();
    if (m.lang != model::Lang::Cpp) return;
    const bool streams = usesStreams(m);
    for (const auto& f : m.functions)
      for (const auto& e : f.events) {
        if (!issuesGpuWork(e) || !e.streamExplicit) continue;
        std::string what = e.api.empty() ? "GPU work" : "'" + e.api + "'";
        if (e.stream.kind == StreamKind::Default) {
          // getDefaultCUDAStream(): the device's default (null) stream, whatever stream the
          // caller made current. Only LibTorch code names it, and LibTorch code runs under the
          // caller's current stream: no other use of streams is needed to make this wrong.
          ctx.report(e.loc, what + " runs on the device's default stream (getDefaultCUDAStream()), not on the "
                            "current stream: when the caller made another stream "
                            "current (a side stream, PyTorch's non-blocking pool streams) this work is "
                            "unordered with the work around it; use at::cuda::getCurrentCUDAStream()");
          continue;
        }
        if (!streams || e.stream.kind != StreamKind::Legacy) continue;
        ctx.report(e.loc, what + " runs on the legacy default stream (no stream, 0, nullptr or "
                          "cudaStreamLegacy) in code that uses other streams: it serializes with "
                          "every blocking stream and is unordered with non-blocking ones such as "
                          "PyTorch's pool streams; pass the stream the surrounding code works on "
                          "(at::cuda::getCurrentCUDAStream() in LibTorch code)");
      }
  }

 private:
  // 1. a stream region (guard) or a created stream; 2. work or waits naming a stream other than
  // the legacy one; 3. work or allocations that follow the current stream without naming one
  // (LibTorch ops and factories; cudaMalloc & co are lowered onto the legacy stream).
  static bool usesStreams(const model::Module& m) {
    for (const auto& f : m.functions) {
      for (const auto& s : f.scopes)
        if (s.kind == model::ScopeKind::StreamRegion) return true;
      for (const auto& e : f.events) {
        if (e.kind == EventKind::StreamCreate || e.kind == EventKind::RecordStream) return true;
        if (e.streamExplicit && e.stream.kind != StreamKind::Legacy && e.stream.kind != StreamKind::Default) return true;
        if ((e.kind == EventKind::Work || e.kind == EventKind::Alloc) && !e.streamExplicit &&
            e.stream.kind != StreamKind::Legacy && e.stream.kind != StreamKind::PerThread)
          return true;
      }
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL601() { return std::make_unique<LegacyDefaultStreamLaunch>(); }

}  // namespace sl::rules
