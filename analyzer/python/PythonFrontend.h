// Python source -> StreamModel, via tree-sitter and the tree-sitter-python grammar.
#pragma once
#include <vector>

#include "config/ProjectKnowledge.h"
#include "core/Finding.h"
#include "core/SourceFile.h"
#include "model/StreamModel.h"

namespace sl::py {

// Lowers every function, method and the module-level code of `file`. Syntax errors yield a
// "parse-error" diagnostic and the parts that parsed are still lowered. Thread-safe.
// `knowledge` (from the project's config) maps project helpers onto torch APIs.
// `prefilter`: parse and lower only the code that can matter to a rule (PyPrefilter.h); the
// findings are the same, the model omits functions that can have no events, and syntax
// errors in code that is not parsed go unreported.
model::Module lowerPython(const SourceFile& file, std::vector<Finding>& diagnostics,
                          const ProjectKnowledge& knowledge = {}, bool prefilter = false);

}  // namespace sl::py
