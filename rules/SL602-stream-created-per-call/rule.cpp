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
        bool inLoop = model::enclosingScope(f, e.scope, model::ScopeKind::Loop) >= 0;
        if (inLoop) {
          ctx.report(e.loc, std::string(e.kind == EventKind::StreamCreate ? "stream" : "event") +
                                " created on every loop iteration: each creation calls into the driver; "
                                "create it once before the loop and reuse it");
          continue;
        }
        if (e.kind != EventKind::StreamCreate || !perCall(f, e)) continue;
        ctx.report(e.loc, "stream created on every call of '" + f.name +
                              "' and kept only locally: each call pays a driver call and gets a fresh "
                              "allocator pool; create the stream once (module level, __init__, or a cache) "
                              "and reuse it");
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

  // Created in a function body and stored nowhere that outlives the call.
  static bool perCall(const model::Function& f, const model::Event& e) {
    if (f.name == "<module>" || isConstructor(f.name)) return false;
    if (e.value.find_first_of(".[") != std::string::npos || e.value.find("->") != std::string::npos)
      return false;  // attribute (Python `self.s`, C++ `this->s_`) or cache
    return std::find(f.returned.begin(), f.returned.end(), e.value) == f.returned.end() || e.value.empty();
  }
};

}  // namespace

std::unique_ptr<Rule> make_SL602() { return std::make_unique<StreamCreatedPerCall>(); }

}  // namespace sl::rules
