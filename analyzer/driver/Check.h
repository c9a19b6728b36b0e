// `streamlint check` without the command line: find inputs and their configs, lower them in
// parallel, run the selected rules, apply configuration and inline suppressions. Shared by the
// CLI and the rule-example tests.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/Finding.h"
#include "cxx/CxxPlugin.h"
#include "driver/FileWalk.h"

namespace sl {

struct CheckOptions {
  std::vector<std::string> paths;
  std::vector<std::string> select;  // rule IDs or prefixes ("SL3"); empty = all static rules
  std::vector<std::string> ignore;
  cxx::Request cxx;                 // C/C++ inputs and flags (files filled from the walk)
  unsigned jobs = 0;                // 0 = all cores
  bool dumpModel = false;
  bool progress = false;            // a progress line on stderr (a terminal)
  // C/C++ progress where stderr is not a terminal: a line per translation unit (CI logs; each
  // takes seconds, so silence reads as a hang). Off with -q.
  bool progressLines = false;
  std::string configFile;           // --config: this file for every input; "" = found upwards
  bool reportUnusedSuppressions = false;
  // Show performance notes in deliberate code too (--check-deliberate-code; the config's
  // `check-deliberate-code` turns it on per project). driver/DeliberateCode.h.
  bool checkDeliberateCode = false;
  // Python: parse only code that can matter to a rule (python/PyPrefilter.h). Same findings;
  // syntax errors in skipped code go unreported. Off with --dump-model, or when the
  // environment sets STREAMLINT_NO_PREFILTER (to compare both ways: bench/python).
  bool prefilter = true;
  // --min-confidence: findings less sure than this are hidden (0 low, 1 medium, 2 high);
  // -1 = the config's `min-confidence`, else medium. Low also turns the prefilter off (its
  // soundness argument covers what medium and high findings need).
  int minConfidence = -1;
  // --keep-going: C/C++ files that cannot be parsed do not fail the run (config: keep-going).
  bool keepGoing = false;
  // --lang python,cpp: the frontends that run (config: `languages`). Empty = the default:
  // Python always; C/C++ when a compilation database is given (or found: the CLI sets
  // cxx.compileDbDir) or for files named as inputs. Walked C/C++ files left out by the default
  // are listed in CheckResult::cppOff, and do not fail the run.
  std::vector<std::string> languages;
  // cxx.compileDbDir was found beside the inputs, not given (-p): it gives the walked C/C++
  // files their flags, but its own entries are not analysed when the walk found none.
  bool compileDbFound = false;
  // --extend-exclude: globs relative to the current directory, added to every config's exclude.
  std::vector<std::string> extendExclude;
  // Which halves of the run to do: the CLI caches the Python half (ResultCache.h) and runs the
  // C/C++ half every time (headers are not tracked). Walk and config errors belong to the
  // Python half.
  bool runPython = true;
  bool runCpp = true;
  // The walk of `paths` when the caller did it already (the cache key's): not walked again.
  std::shared_ptr<const WalkResult> walked;
  // --diff: judge only these Python files (absolute, canonical: ChangedLines::changedFiles), and
  // lower only the files their findings depend on (driver/DiffScope.h). Unset: every file.
  std::optional<std::vector<std::string>> pythonOnly;
  // The caller exits right after the check (the CLI): the analysis state (every file's text,
  // model and summary) is left to the exit instead of being freed one object at a time, which
  // took 0.1 s of a 2.2 s check of the 40 MB corpus (bench/python).
  bool exitsAfter = false;
};

struct CheckResult {
  std::vector<Finding> findings;     // rule results, sorted
  std::vector<Finding> diagnostics;  // parse/input/config errors, sorted
  // Performance notes left out as deliberate code, sorted; properties["deliberate"] says why
  // ("tests/", "test_*.py", "`__repr__`").
  std::vector<Finding> hiddenDeliberate;
  size_t files = 0;                  // inputs analysed (parsed, maybe with errors)
  size_t cppUnits = 0;               // C/C++ translation units attempted
  size_t cppSkipped = 0;             // ... of which none could be analysed
  size_t cppPartial = 0;             // ... analysed with errors (a missing header, code that did not parse)
  // C/C++ files a directory walk found that the default leaves out (no compilation database,
  // no `languages`): listed once, never a failure.
  std::vector<std::string> cppOff;
  // Diagnostics whose "keepGoing" property is true (C/C++ parse failures under --keep-going or
  // the config's keep-going) are reported but do not make the run exit 2.
  size_t bytes = 0;
  size_t hiddenUnsure = 0;           // findings below the minimum confidence, not shown
  std::string modelDump;             // when dumpModel
  // Each file with a fixable finding -> textDigest of the text its fixes were computed from:
  // `--fix` edits a file only while it still holds that text (driver/FixApply.h).
  std::map<std::string, std::string> fixBasis;
};

// Config errors (TOML syntax, unknown keys) stop the check before any analysis: the result
// then holds only "config-error" diagnostics.
CheckResult runCheck(const CheckOptions& opts);
// Adds `part` (the other half of a run: CheckOptions::runPython/runCpp) to `whole`, sorted.
void mergeResults(CheckResult& whole, CheckResult part);
// Selection by the command line only (--select/--ignore).
bool ruleSelected(const std::string& id, const CheckOptions& opts);

}  // namespace sl
