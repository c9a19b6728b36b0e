#include "python/PyCallerInputs.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace sl::py {
namespace {

// A host sync of low confidence (`p.tolist()`, `sent.item()` of a value taken from a
// parameter): what a parameter's device could decide.
bool guessedSync(const model::Function& g) {
  return std::any_of(g.events.begin(), g.events.end(), [](const model::Event& e) {
    return e.kind == model::EventKind::HostSync && e.confidence == model::Confidence::Low;
  });
}

}  // namespace

bool addSameModuleInputs(const model::Module& m, CallerInputs& inputs) {
  std::unordered_map<std::string, const model::Function*> byName;
  for (const auto& f : m.functions) byName.emplace(f.name, &f);
  bool added = false;
  for (const auto& f : m.functions) {
    if (!f.deliberate.empty()) continue;
    const std::string caller = f.name.substr(f.name.rfind('.') + 1);  // npos + 1 == 0
    for (const auto& e : f.events) {
      // A part of a call's bundle taken for a tensor by its name (`audio, sr, manifest = read(..,
      // device)`) is too weak to build a callee's facts on.
      const uint32_t sure = e.cudaArgs & ~e.namedArgs;
      if (e.kind != model::EventKind::Call || sure == 0) continue;
      auto it = byName.find(e.callee);
      if (it == byName.end() || it->second == &f) continue;
      const model::Function& g = *it->second;
      if (!guessedSync(g)) continue;
      // `self.helper(x)`: the first parameter is the receiver.
      const size_t shift = !g.params.empty() && (g.params[0] == "self" || g.params[0] == "cls") ? 1 : 0;
      for (size_t i = 0; i < 32; ++i) {
        if (!(sure & (uint32_t(1) << i)) || i + shift >= g.params.size()) continue;
        const size_t index = i + shift;
        auto& list = inputs[g.name];
        if (std::any_of(list.begin(), list.end(), [&](const CallerInput& c) { return c.index == index; })) continue;
        list.push_back({index, "a GPU tensor is passed to it by `" + caller + "()` (line " + std::to_string(e.loc.line) + ")",
                        true});
        added = true;
      }
    }
  }
  return added;
}

}  // namespace sl::py
