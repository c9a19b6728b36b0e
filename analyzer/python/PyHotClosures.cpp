#include "python/PyHotClosures.h"

#include <algorithm>
#include <string>
#include <vector>
#include <unordered_map>

namespace sl::py {
namespace {

// Whether a call at `e` runs whenever its function does: no `if`/`try` arm or guarded block
// around it, and no earlier `return` inside a branch.
bool runsOnEveryCall(const model::Function& f, const model::Event& e) {
  for (int s = e.scope; s >= 0; s = f.scopes[size_t(s)].parent) {
    model::ScopeKind k = f.scopes[size_t(s)].kind;
    if (k == model::ScopeKind::Branch || k == model::ScopeKind::Guarded || k == model::ScopeKind::Loop) return false;
  }
  return !f.firstInnerReturn || e.loc.line < f.firstInnerReturn;
}

}  // namespace

void markHotClosures(model::Module& m) {
  std::unordered_map<std::string, model::Function*> byName;
  for (auto& f : m.functions) byName.emplace(f.name, &f);
  // "outer.inner" is a closure when "outer" is a function ("Class.method" is a method: no
  // function is named "Class").
  auto closure = [&](const std::string& name) -> model::Function* {
    size_t dot = name.rfind('.');
    if (dot == std::string::npos || !byName.count(name.substr(0, dot))) return nullptr;
    auto it = byName.find(name);
    return it == byName.end() ? nullptr : it->second;
  };
  // "Class.m" called as `self.m(...)` from "Class.caller": a method of the caller's own class.
  auto sibling = [&](const model::Function& f, const std::string& name) -> model::Function* {
    size_t dot = f.name.rfind('.');
    if (dot == std::string::npos || name.compare(0, dot + 1, f.name, 0, dot + 1) != 0 ||
        name.find('.', dot + 1) != std::string::npos || byName.count(f.name.substr(0, dot)))
      return nullptr;
    auto it = byName.find(name);
    return it == byName.end() || !it->second->deliberate.empty() ? nullptr : it->second;
  };
  // Whether the loop scope `loop` holds another loop: then it is an outer loop (over chunks,
  // epochs, videos), whose per-iteration calls are spread over the inner loop's work.
  auto innermost = [](const model::Function& f, int loop) {
    for (size_t s = 0; s < f.scopes.size(); ++s)
      if (int(s) != loop && f.scopes[s].kind == model::ScopeKind::Loop && model::scopeWithin(f, int(s), loop)) return false;
    return true;
  };
  // The lines of each function's closures: calls there are a closure's body lowered at its call
  // (PyLowering.cpp inlineClosure), judged where that closure is, not as its encloser's own.
  // (A closure's own closures lie inside its lines.)
  std::unordered_map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> closureLines;
  for (const auto& h : m.functions)
    if (closure(h.name) && h.endLine) closureLines[h.name.substr(0, h.name.rfind('.'))].emplace_back(h.loc.line, h.endLine);
  const std::vector<std::pair<uint32_t, uint32_t>> none;
  for (const auto& f : m.functions) {
    if (!f.deliberate.empty()) continue;
    std::string caller = f.name.substr(f.name.rfind('.') + 1);  // npos + 1 == 0
    auto own = closureLines.find(f.name);
    const auto& closures = own == closureLines.end() ? none : own->second;
    for (const auto& e : f.events) {
      if (e.kind != model::EventKind::Call) continue;
      if (std::any_of(closures.begin(), closures.end(),
                      [&](const auto& c) { return c.first <= e.loc.line && e.loc.line <= c.second; }))
        continue;
      model::Function* g = closure(e.callee);
      int loop = model::enclosingScope(f, e.scope, model::ScopeKind::Loop);
      // A method handed GPU tensors on every iteration of its sibling's loop (`for beam in ...:
      // self._search_beam(beam, lprobs[beam])`) is that loop's body written as a method.
      if (!g && loop >= 0 && e.cudaArgs && innermost(f, loop)) g = sibling(f, e.callee);
      // A helper hot only through a caller (what it does on every call) may still be a loop's
      // body: the loop is the stronger reason.
      if (!g || g == &f || !g->perIteration.empty() || (!g->hot.empty() && !g->hotViaCaller)) continue;
      if (loop < 0) {
        if (g->hot.empty() && !f.hot.empty() && !f.hotViaCaller && runsOnEveryCall(f, e))
          g->hot = "called every step from `" + caller + "()`, " + f.hot, g->hotViaCaller = true;
        continue;
      }
      int guard = model::enclosingScope(f, e.scope, model::ScopeKind::Guarded);
      if (guard >= 0 && model::scopeWithin(f, guard, loop)) continue;  // `if step % N == 0:`
      g->perIteration = "the loop at line " + std::to_string(f.scopes[size_t(loop)].loc.line) + " of `" + caller + "()`";
      g->perIterationLoop = f.scopes[size_t(loop)].loc;
    }
  }
}

}  // namespace sl::py
