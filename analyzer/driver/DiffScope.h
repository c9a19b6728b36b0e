// `--diff REV` for Python: which files a run must lower so that the changed files get exactly the
// findings a full run gives them, without lowering the rest of the project.
//
// Only changed files are judged (a finding is reported only on a changed line). Their findings
// depend on other files in two ways (driver/Check.cpp, steps 3 and 4):
//   * hot helpers (driver/HotHelpers.h): a per-step function of another module that calls a
//     helper of a changed file makes that helper run every step (one level). Such a caller names
//     the changed file's module (`kernels` for pkg/kernels.py, `pkg` for pkg/__init__.py) in an
//     import or a dotted call, or imports it through a package `__init__.py` that names it. So
//     the first round lowers the changed files, every file that names one of their stems as a
//     word (through re-exporting `__init__.py` files, whose own stems then count too), and every
//     module that shares such a stem (a full run's name resolution sees the same ambiguities);
//   * callee summaries (driver/ProjectIndex.h): a function of another module that synchronizes,
//     transitively through that module's own callees. ProjectIndex resolves a call's callee name
//     ("pkg.utils.barrier", "..utils.barrier") by the module path's suffixes: `modulesCalled`
//     lists every module whose parts end with a leading part of the (absolute) callee name, and
//     Check.cpp lowers them, round after round, from the changed files.
// Mentions are identifiers in the raw text (comments and strings only make the set larger).
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sl {

class DiffScope {
 public:
  explicit DiffScope(const std::vector<std::string>& paths);
  // `texts[i]` is the text of `paths[i]`; `judged[i]`: a changed file. The files of round one.
  std::vector<bool> firstRound(const std::vector<std::string_view>& texts, const std::vector<bool>& judged) const;
  // Appends to `out` every module a call named `callee` in module `from` can resolve to.
  void modulesCalled(size_t from, const std::string& callee, std::vector<size_t>& out) const;

 private:
  std::vector<std::string> paths_, stems_;
  std::vector<std::vector<std::string>> parts_;  // module names' parts (ProjectIndex::moduleParts)
  std::vector<bool> package_;
  std::unordered_map<std::string_view, std::vector<size_t>> byStem_;  // views of stems_
};

}  // namespace sl
