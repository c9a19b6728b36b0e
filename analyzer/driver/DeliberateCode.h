// Deliberate code: tests, benchmarks, examples, functions written for people (`__repr__`) and
// lines that run only on failure (an exception's message).
// A test reads `.item()` to compare, a benchmark synchronizes to time, an example prints the
// loss every step, `__repr__` formats a value: the cost is chosen, so *performance* notes
// (rule.md `kind: performance`: SL3xx, SL5xx, SL6xx) are left out there by default and only
// counted ("N hidden"). Correctness rules (SL1xx, SL2xx, SL401) stay on everywhere.
// `check-deliberate-code = true` (config) or `--check-deliberate-code` shows them.
//
// Paths are judged relative to the project root, the same way whatever PATH was named on the
// command line (like ruff's per-file-ignores), so pre-commit's file lists, a CI run on `.`
// and a baseline agree: the directory of the config that governs the file, else the git work
// tree holding it, else the current directory — the first that contains the file. A file
// outside all of them is judged by its name only.
#pragma once
#include <map>
#include <vector>
#include <string>
#include <string_view>

#include "core/Finding.h"
#include "model/StreamModel.h"

namespace sl {

// Why a path relative to the project root ('/'-separated) is deliberate code, or "":
// a directory tests/, test/, benchmarks/, benchmark/, bench/, examples/, example/, tutorials/, archive/,
// archived/ (copies of old code kept for reference) ("tests/"), scripts/, tools/, tasks/ (one-off
// scripts: deliberate only outside training loops and per-step code, DeliberatePolicy.h),
// testing/, test_utils/, or a file test_*.py, *_test.py, conftest.py (any extension for the
// first two), or a script whose name's first or last word is benchmark, bench, example or demo,
// that has a word test(s), or starts with convert_ (a one-off checkpoint conversion).
std::string deliberatePathReason(const std::string& relative);

// Finds project roots (git work trees, cached per directory). Not thread-safe.
class ProjectRoots {
 public:
  // Why `path` (absolute and canonical: ConfigResolver::forFile gives it) is deliberate code,
  // judged from the first of `configDir` (may be ""), the git work tree, the current directory
  // and the path given on the command line that contains it; "" when it is not.
  std::string deliberateReason(const std::string& path, const std::string& configDir);

  // The paths given on the command line: outside a git work tree, a config's directory and the
  // current directory, the input directory is the project (`check /data/repo` judges `tests/`
  // in it the same from any current directory; before, only the file's name was judged then).
  void setInputs(const std::vector<std::string>& paths);

 private:
  std::vector<std::string> inputs_;  // absolute directories, deepest first
  std::string gitRoot(const std::string& dir);
  std::map<std::string, std::string> gitRoots_;  // directory -> work tree root ("" = none)
  std::string cwd_;  // the current directory, read once
};

// Why a finding at `line` of module `m` sits in deliberate code: a line that runs only on
// failure (`raise`, an `except` handler), a check, an export arm or logging (the span half), or
// a deliberate function around it (`__repr__`, set-up: the role half); "" when it does not.
std::string deliberateLineReason(const model::Module& m, uint32_t line);
std::string deliberateSpanReason(const model::Module& m, uint32_t line);
std::string deliberateRoleReason(const model::Module& m, uint32_t line);

// Whether `line` is in the body of a loop that also runs a backward pass: the training loop.
bool inTrainingLoop(const model::Module& m, uint32_t line);
// Whether a function holding `line` (it or one around it) is per-step code (Function::hot).
bool hotAround(const model::Module& m, uint32_t line);

// Why `line` of module `m` is one-time set-up by its callers (calledOnlyFromSetUp), or "": the
// innermost function holding it, when no function around it has a role. `src`: m's text.
std::string setUpByCallers(const model::Module& m, uint32_t line, std::string_view src);

// Why `f`, a function with no role of its own, is one-time set-up by its callers, or "":
// its name is private (`_create_buffers`) and every mention of it in `src` (the module's text)
// other than its `def` is a call made directly in a function named as set-up (`__init__`,
// `setup*`...). One level: a helper of such a helper is not followed.
std::string calledOnlyFromSetUp(const model::Function& f, std::string_view src);

// Whether the name at offset `at` (`length` bytes) of Python source `src` is prose, not code: in a comment,
// between quotes on its line (an f-string or a message naming the function), or quoted with
// backticks (a docstring's `_helper`). Such mentions neither call nor hand on a function.
bool mentionInProse(std::string_view src, size_t at, size_t length);

}  // namespace sl
