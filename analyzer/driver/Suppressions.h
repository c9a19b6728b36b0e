// Inline suppressions: `# noqa` / `# noqa: SL301,SL302` (Python), `// NOLINT(SL601)` and
// `// NOLINTNEXTLINE(SL601)` (C++). A bare noqa/NOLINT suppresses every rule on its line.
#pragma once
#include <string_view>

namespace sl {

// Whether `rule` is suppressed by a marker in `line` (the flagged line) or, for
// NOLINTNEXTLINE, in `previous` (the line above).
bool suppressedBy(std::string_view line, std::string_view previous, std::string_view rule);

}  // namespace sl
