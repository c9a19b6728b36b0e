// Finds the inputs under PATHs the way a linter user expects: skips .git, virtualenvs, build
// outputs and caches, honours .gitignore files, never follows directory symlinks (no loops).
#pragma once
#include <string>
#include <unordered_set>
#include <vector>

namespace sl {

enum class InputLang { Python, Cpp, Other };
InputLang classifyPath(const std::string& path);

struct WalkResult {
  std::vector<std::string> python;
  std::vector<std::string> cpp;
  std::vector<std::string> errors;  // "path: reason"
  // C/C++ files named as inputs (not found by a directory walk): analysed by default, where
  // walked ones need a compilation database or `languages` (driver/Languages.h).
  std::unordered_set<std::string> cppNamed;
};

// Paths are reported as ruff reports them: a walk of `.` yields `src/a.py`, not `./src/a.py`
// (SARIF and annotations strip it already; text and JSON must say the same).
WalkResult walkInputs(const std::vector<std::string>& paths);

}  // namespace sl
