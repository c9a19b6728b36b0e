// Inline suppressions: `# noqa` / `# noqa: SL301,SL302` (Python), `// NOLINT(SL601)` and
// `// NOLINTNEXTLINE(SL601)` (C++). A bare noqa/NOLINT suppresses every rule on its line.
// Wider ones: `# streamlint: noqa-file` (or `// streamlint: noqa-file`, optionally
// `: SL302,SL301`) anywhere in a file suppresses those rules in the whole file, and
// `// NOLINTBEGIN(SL601)` ... `// NOLINTEND(SL601)` (also after `#` in Python) every line between.
#pragma once
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/Finding.h"

namespace sl {

struct Marker {
  enum class Kind { Noqa, Nolint, NolintNextLine };
  Kind kind = Kind::Noqa;
  uint32_t col = 1;                // 1-based column of the comment that holds it
  bool all = false;                // no rule list: every rule
  std::vector<std::string> rules;  // the listed codes, as written
  bool names(std::string_view rule) const;
};

// Markers in one line, left to right.
std::vector<Marker> markersIn(std::string_view line);

// Whether `rule` is suppressed by a marker in `line` (the flagged line) or, for
// NOLINTNEXTLINE, in `previous` (the line above).
bool suppressedBy(std::string_view line, std::string_view previous, std::string_view rule);

// Applies one file's markers to its findings and remembers which listed codes were used, so
// `--report-unused-suppressions` can name the ones that suppress nothing.
class SuppressionLedger {
 public:
  explicit SuppressionLedger(const SourceFile& file) : file_(file) {}
  // True when a marker suppresses `f` (which must be in this file); the use is recorded.
  bool suppress(const Finding& f);
  // One "unused-suppression" finding per listed SL code that `active` says was checked on this
  // file and that suppressed nothing. Bare markers and other tools' codes (E501, clang-tidy
  // checks) are never reported: they may serve other linters.
  void reportUnused(const std::function<bool(const std::string&)>& active, std::vector<Finding>& out) const;

 private:
  // File-wide and NOLINTBEGIN/END markers, found on the first finding of the file (files
  // without findings are never scanned for them).
  struct Span {
    uint32_t first = 0, last = 0;  // inclusive line range; the whole file for noqa-file
    Marker marker;
  };
  void indexSpans();
  const SourceFile& file_;
  bool spansIndexed_ = false;
  std::vector<Span> spans_;
  std::set<std::tuple<uint32_t, size_t, std::string>> used_;  // (line, marker index, code)
};

}  // namespace sl
