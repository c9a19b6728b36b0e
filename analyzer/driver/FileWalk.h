// Finds the inputs under PATHs the way a linter user expects: skips .git, virtualenvs, build
// outputs and caches, honours .gitignore files, never follows directory symlinks (no loops).
#pragma once
#include <string>
#include <vector>

namespace sl {

enum class InputLang { Python, Cpp, Other };
InputLang classifyPath(const std::string& path);

struct WalkResult {
  std::vector<std::string> python;
  std::vector<std::string> cpp;
  std::vector<std::string> errors;  // "path: reason"
};

WalkResult walkInputs(const std::vector<std::string>& paths);

}  // namespace sl
