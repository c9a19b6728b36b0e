// Calls between the Python modules of one check. `from .utils import helper; helper(x)` or
// `pkg.utils.helper(x)` in one file reaches helper's summary in another file, so a callee's
// explicit host syncs count at its call sites across the project, transitively: summaries are
// propagated over all modules to a fixpoint.
//
// Modules are named by their file's path ("src/pkg/utils.py" -> "src.pkg.utils"; an
// `__init__.py` names its package) and indexed under every suffix of that name, so an absolute
// import resolves whatever directory the check started from; a relative import resolves against
// the importing file's package.
#pragma once
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/StreamModel.h"

namespace sl {

class ProjectIndex {
 public:
  // summaries[i] summarises modules[i]; both must outlive the index. Wires each summary's
  // external lookup to the index and propagates facts across modules.
  ProjectIndex(const std::vector<const model::Module*>& modules, std::vector<model::ModuleSummary*>& summaries);
  // A module's dotted name from its file's path ("src/pkg/utils.py" -> src, pkg, utils; an
  // `__init__.py` names its package: `package` is set).
  static std::vector<std::string> moduleParts(std::string path, bool& package);
  // `callee` as written in module `parts` ("..utils.helper": one package up) made absolute;
  // "" when it climbs above the root.
  static std::string absoluteName(const std::vector<std::string>& parts, bool package, const std::string& callee);
  static std::string join(const std::vector<std::string>& parts, size_t begin, size_t end);
  // Where each part starts in join(parts, 0, parts.size()): the suffix from part i is the
  // joined name from starts[i] (cheaper than joining every suffix anew).
  static std::vector<size_t> partStarts(const std::vector<std::string>& parts);

 private:
  const model::FunctionSummary* resolve(size_t from, const std::string& callee) const;

  std::vector<std::vector<std::string>> names_;  // per module: its dotted path's parts
  std::vector<bool> package_;                    // per module: an __init__.py
  std::vector<model::ModuleSummary*> summaries_;
  // "pkg.utils.helper" (and every shorter suffix) -> (module, function name in it)
  std::unordered_map<std::string, std::pair<size_t, std::string>> functions_;
  // What a caller in another module learns from each resolved callee (see resolve()); filled
  // while propagating (one thread), then only read (the rules' threads).
  mutable std::unordered_map<std::string, model::FunctionSummary> views_;
  bool frozen_ = false;
};

}  // namespace sl
