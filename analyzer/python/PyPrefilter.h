// A byte-level prefilter that decides, before tree-sitter runs, which top-level functions,
// classes and methods of a Python file can matter to any rule, so the rest is never parsed.
//
// Parsing is ~3/4 of a check's time and most code of a PyTorch project cannot produce a
// finding: a finding needs a stream region, a stream/event, a non_blocking copy, a clock read,
// or a loop with evidence of a CUDA value (see PyPrefilter.cpp for the exact conditions and why
// they are sound). The prefilter keeps such "root" units plus everything their lowering reads
// (callees, the methods that assign the `self.` attributes they use, function-local imports
// of names they use) and all module-level code; the frontend then parses only those byte
// ranges (ts_parser_set_included_ranges), so positions in the tree stay those of the file.
//
// Findings are identical with and without it (tests/python_prefilter_test.cpp and
// bench/python/compare_prefilter.py check that). What is lost: syntax errors inside code that
// is not parsed are not reported (a file whose brackets or strings do not close is always
// parsed whole, so that common case is still reported).
#pragma once
#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <vector>

#include "config/ProjectKnowledge.h"

namespace sl::py {

struct ParsePlan {
  enum class Mode : unsigned char {
    Whole,   // parse (and lower) the whole file: nothing to drop, or the scan was not sure
    Ranges,  // parse only `ranges`
    Skip,    // nothing in the file can produce a finding: do not parse it at all
  };
  Mode mode = Mode::Whole;
  std::vector<TSRange> ranges;  // Ranges: the byte ranges to parse, in order
  size_t parsedBytes = 0;       // bytes inside `ranges` (Ranges) — for statistics
};

// `lowered`: whether the frontend would lower this file at all (it lowers only files that
// name torch or cuda, or when the project configures helpers). A file that is not lowered is
// skipped unless the scan suspects a syntax error (then it is parsed for the diagnostic).
// `roots`: top-level functions kept whatever they hold, with everything their lowering reads
// (helpers that per-step code in other files calls: driver/HotHelpers.h).
ParsePlan planParse(std::string_view src, const ProjectKnowledge& knowledge, bool lowered,
                    const std::vector<std::string>* roots = nullptr);

}  // namespace sl::py
