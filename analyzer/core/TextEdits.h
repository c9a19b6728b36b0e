// Applying text edits (Finding::fixes) and showing them as a unified diff. In sl_core: the
// lintrunner writer puts the fixed file into its messages.
#pragma once
#include <string>
#include <vector>

#include "core/Finding.h"

namespace sl {

// `text` with `edits` applied (non-overlapping; overlapping ones after the first, and ones
// outside the text, are dropped and counted in `skipped`). Positions are found in `text`; the
// unchanged spans are copied from `bytes` when given (as long as `text`: the file as stored, where
// `text` had its lone CRs made LFs, so that `--fix` keeps them).
std::string applyEdits(const std::string& text, std::vector<Edit> edits, size_t* skipped = nullptr,
                       const std::string* bytes = nullptr);

// `--fix --diff-only`: the unified diff (3 lines of context) that applying `edits` to `text`
// (the file `path`) makes; "" when there are none.
std::string unifiedDiff(const std::string& path, const std::string& text, const std::vector<Edit>& edits);

}  // namespace sl
