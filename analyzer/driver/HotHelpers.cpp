#include "driver/HotHelpers.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "driver/ProjectIndex.h"
#include "python/PyFunctionRoles.h"

namespace sl {
namespace {

// Whether a call at `e` runs whenever its function does: no `if`/`try` arm or guarded block
// around it, and no earlier `return` inside a branch (the lowering's firstInnerReturn).
bool runsOnEveryCall(const model::Function& f, const model::Event& e) {
  for (int s = e.scope; s >= 0; s = f.scopes[size_t(s)].parent) {
    model::ScopeKind k = f.scopes[size_t(s)].kind;
    if (k == model::ScopeKind::Branch || k == model::ScopeKind::Guarded) return false;
  }
  return !f.firstInnerReturn || e.loc.line < f.firstInnerReturn;
}

bool definesFunction(std::string_view text, const std::string& name) {
  return text.find("def " + name + "(") != std::string_view::npos;
}

// Module names of the check, by every suffix of their dotted path (an absolute import names
// the module whatever directory the check started from); a suffix two modules share is
// ambiguous and resolves to none.
class ModuleNames {
 public:
  explicit ModuleNames(const std::vector<const model::Module*>& modules) {
    for (size_t m = 0; m < modules.size(); ++m) {
      bool package = false;
      parts_.push_back(ProjectIndex::moduleParts(modules[m]->path, package));
      package_.push_back(package);
      const auto& p = parts_.back();
      const std::string dotted = ProjectIndex::join(p, 0, p.size());
      const std::vector<size_t> starts = ProjectIndex::partStarts(p);
      for (size_t at : starts) {
        auto [it, fresh] = bySuffix_.emplace(dotted.substr(at), long(m));
        if (!fresh && it->second != long(m)) it->second = -1;
      }
      if (!p.empty()) children_[dotted.substr(0, starts.back() ? starts.back() - 1 : 0)].push_back(m);
    }
  }
  // The module a dotted name (already absolute) names, or -1.
  long find(const std::string& dotted) const {
    auto it = bySuffix_.find(dotted);
    return it == bySuffix_.end() ? -1 : it->second;
  }
  std::string absolute(size_t from, const std::string& callee) const {
    return ProjectIndex::absoluteName(parts_[from], package_[from], callee);
  }
  bool package(size_t m) const { return package_[m]; }
  // The modules directly inside package `m` (`pkg/a.py`, `pkg/b/__init__.py`).
  std::vector<size_t> children(size_t m) const {
    const auto& p = parts_[m];
    auto it = children_.find(ProjectIndex::join(p, 0, p.size()));
    return it == children_.end() ? std::vector<size_t>{} : it->second;
  }

 private:
  std::vector<std::vector<std::string>> parts_;
  std::vector<bool> package_;
  std::unordered_map<std::string, long> bySuffix_;
  std::unordered_map<std::string, std::vector<size_t>> children_;
};

}  // namespace

std::vector<HotHelperCall> findHotHelperCalls(const std::vector<const model::Module*>& modules,
                                              const std::vector<std::string_view>& texts) {
  std::vector<HotHelperCall> out;
  ModuleNames names(modules);
  std::unordered_set<std::string> seen;  // module index + function: first caller wins
  for (size_t m = 0; m < modules.size(); ++m)
    for (const auto& f : modules[m]->functions) {
      if (f.hot.empty() || f.hotViaCaller) continue;  // one level, from per-step code itself
      for (const auto& e : f.events) {
        if (e.kind != model::EventKind::Call || e.value.empty() || !runsOnEveryCall(f, e)) continue;
        std::string full = names.absolute(m, e.callee);
        size_t dot = full.rfind('.');
        if (full.empty() || dot == std::string::npos) continue;  // this module's own function
        std::string fn = full.substr(dot + 1);
        long target = names.find(full.substr(0, dot));
        if (target < 0 || size_t(target) == m || !py::deliberateRole(fn).empty()) continue;
        // Re-exported by a package (`from .quant import fn` in its __init__.py): the one
        // module directly inside it that defines fn.
        if (names.package(size_t(target)) && !definesFunction(texts[size_t(target)], fn)) {
          if (texts[size_t(target)].find(fn) == std::string_view::npos) continue;
          long def = -1;
          for (size_t c : names.children(size_t(target)))
            if (definesFunction(texts[c], fn)) def = def < 0 ? long(c) : -2;
          if (def < 0 || size_t(def) == m) continue;
          target = def;
        }
        if (!definesFunction(texts[size_t(target)], fn)) continue;
        if (!seen.insert(std::to_string(target) + ":" + fn).second) continue;
        std::string caller = f.name.substr(f.name.rfind('.') + 1);  // npos + 1 == 0
        out.push_back({size_t(target), fn,
                       "called every step from `" + caller + "()` in " + modules[m]->path + ", " + f.hot, e.cudaArgs,
                       "`" + caller + "()` in " + modules[m]->path});
      }
    }
  return out;
}

std::vector<size_t> unparsedHelpers(const std::vector<const model::Module*>& modules,
                                    const std::vector<HotHelperCall>& calls) {
  std::vector<size_t> out;
  for (const auto& c : calls)
    if (!modules[c.callee]->find(c.function) &&
        std::find(out.begin(), out.end(), c.callee) == out.end())
      out.push_back(c.callee);
  return out;
}

void markHotHelpers(const std::vector<model::Module*>& modules, const std::vector<HotHelperCall>& calls) {
  for (const auto& c : calls)
    for (auto& f : modules[c.callee]->functions)
      if (f.name == c.function && f.hot.empty()) f.hot = c.why, f.hotViaCaller = true;
}

std::unordered_map<size_t, py::CallerInputs> callerInputs(const std::vector<const model::Module*>& modules,
                                                          const std::vector<HotHelperCall>& calls) {
  std::unordered_map<size_t, py::CallerInputs> out;
  for (const auto& c : calls) {
    if (!c.cudaArgs) continue;
    const model::Function* f = modules[c.callee]->find(c.function);
    if (!f || std::none_of(f->events.begin(), f->events.end(), [](const model::Event& e) {
          return e.kind == model::EventKind::HostSync && e.confidence == model::Confidence::Low;
        }))
      continue;
    auto& params = out[c.callee][c.function];
    for (size_t i = 0; i < 32; ++i)
      if (c.cudaArgs & (uint32_t(1) << i))
        params.push_back({i, "a CUDA tensor is passed to it every step by " + c.caller});
  }
  return out;
}

}  // namespace sl
