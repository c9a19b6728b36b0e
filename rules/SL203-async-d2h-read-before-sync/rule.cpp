// SL203 async-d2h-read-before-sync: see rule.md.
#include "rules/Rule.h"

namespace sl::rules {
namespace {

using model::EventKind;

class AsyncD2HReadBeforeSync : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    // C++ spells it cudaMemcpyAsync / non_blocking=true: say "asynchronous" there.
    const char* nb = ctx.module().lang == model::Lang::Cpp ? "asynchronous" : "non_blocking";
    for (const auto& f : ctx.module().functions)
      for (size_t i = 0; i < f.events.size(); ++i) {
        const auto& read = f.events[i];
        if (read.kind != EventKind::HostRead || read.value.empty()) continue;
        // Walk back to the copy that filled the buffer; a sync or a call that syncs first clears it.
        for (size_t k = i; k-- > 0;) {
          const auto& e = f.events[k];
          const model::FunctionSummary* callee = e.kind == EventKind::Call ? ctx.summary().of(e.callee) : nullptr;
          if ((e.kind == EventKind::HostSync || (callee && callee->sync)) && model::dominates(f, k, i)) break;
          if (e.kind == EventKind::Copy && e.value == read.value && e.nonBlocking &&
              e.dir == model::CopyDir::DeviceToHost && model::mayFollow(f, k, i)) {
            Finding& out = ctx.report(read.loc, "the host reads '" + read.value +
                                                    "' before its " + nb + " device-to-host copy is known "
                                                    "to have completed: it can see stale data; synchronize "
                                                    "(or wait on an event recorded after the copy) first");
            ctx.note(out, e.loc, std::string(nb) + " copy queued here");
            break;
          }
        }
      }
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL203() { return std::make_unique<AsyncD2HReadBeforeSync>(); }

}  // namespace sl::rules
