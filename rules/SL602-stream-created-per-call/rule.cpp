// SL602 stream-created-per-call: see rule.md.
#include <algorithm>

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
        if (model::enclosingScope(f, e.scope, model::ScopeKind::Loop) >= 0) {
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
