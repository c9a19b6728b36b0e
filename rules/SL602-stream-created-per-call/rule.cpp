// SL602 stream-created-per-call: see rule.md.
#include <algorithm>
#include <set>

#include "rules/Rule.h"

namespace sl::rules {
namespace {

using model::EventKind;

class StreamCreatedPerCall : public Rule {
 public:
  void check(RuleContext& ctx) const override {
    for (const auto& f : ctx.module().functions)
      for (const auto& e : f.events) {
        if (e.kind != EventKind::StreamCreate && e.kind != EventKind::EventCreate) continue;
        if (kept(f, e)) continue;
        const char* what = e.kind == EventKind::StreamCreate ? "stream" : "event";
        // A constructor's loop makes one stream or event per element of what it builds
        // (`for (auto& e : joined) cudaEventCreate(&e)`): set-up, once per object.
        const bool setUp = isConstructor(f.name) && !e.pooled;
        if (!setUp && model::enclosingScope(f, e.scope, model::ScopeKind::Loop) >= 0) {
          ctx.report(e.loc, std::string(what) +
                                (e.pooled ? " taken from the stream pool on every loop iteration: the pool "
                                            "cycles through a few streams, so iterations silently share "
                                            "streams and allocator pools"
                                          : " created on every loop iteration: each creation is a driver call") +
                                "; create it once before the loop and reuse it");
          continue;
        }
        // Outside loops only real creations cost: a pooled stream per call is a cheap lookup.
        // `main` and constructors run once: that is where streams belong.
        if (e.kind != EventKind::StreamCreate || e.pooled || f.name == "<module>" || f.name == "main" ||
            isConstructor(f.name))
          continue;
        // A helper that only `main` (or other such helpers) calls, outside loops, runs a fixed
        // number of times: a demo step or a set-up function, not a per-call cost.
        std::set<std::string> seen;
        if (runsFixedTimes(ctx.module(), f.name, seen)) continue;
        ctx.report(e.loc, "stream created on every call of '" + f.name +
                              "' and kept only locally: each call pays a driver call and gets a fresh "
                              "allocator pool; create the stream once (module level, a constructor, or a "
                              "cache) and reuse it");
      }
  }

 private:
  // Python `__init__`, C++ `X::X`: run once per object, which is where streams belong.
  static bool isConstructor(const std::string& name) {
    if (name.ends_with("__init__")) return true;
    size_t sep = name.rfind("::");
    if (sep == std::string::npos) return false;
    std::string cls = name.substr(0, sep), fn = name.substr(sep + 2);
    size_t outer = cls.rfind("::");
    return (outer == std::string::npos ? cls : cls.substr(outer + 2)) == fn;
  }

  // Every call of `name` in the module sits outside loops, in `main`, module code, a
  // constructor, or a function that itself runs a fixed number of times. A function nobody in
  // the file calls (a library entry point) may be called any number of times.
  static bool runsFixedTimes(const model::Module& m, const std::string& name, std::set<std::string>& seen) {
    if (name == "main" || name == "<module>" || isConstructor(name)) return true;
    if (!seen.insert(name).second) return false;  // recursion
    bool called = false;
    for (const auto& g : m.functions)
      for (const auto& c : g.events) {
        if (c.kind != EventKind::Call || c.callee != name) continue;
        called = true;
        if (model::enclosingScope(g, c.scope, model::ScopeKind::Loop) >= 0) return false;
        if (!runsFixedTimes(m, g.name, seen)) return false;
      }
    return called;
  }

  // Stored somewhere that outlives the call (attribute, container, return value, a callee).
  static bool kept(const model::Function& f, const model::Event& e) {
    if (e.value.find_first_of(".[") != std::string::npos || e.value.find("->") != std::string::npos) return true;
    auto in = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), e.value) != v.end(); };
    return !e.value.empty() && (in(f.returned) || in(f.escaped));
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL602() { return std::make_unique<StreamCreatedPerCall>(); }

}  // namespace sl::rules
