#include "driver/DeliberateCode.h"

#include <filesystem>

namespace sl {
namespace fs = std::filesystem;

std::string deliberatePathReason(const std::string& relative) {
  if (relative.empty() || relative.starts_with("../") || relative == "..") return "";
  size_t slash = relative.rfind('/');
  std::string file = slash == std::string::npos ? relative : relative.substr(slash + 1);
  // Directories first: "tests/" says more than the file's name.
  for (size_t b = 0, e; slash != std::string::npos && b <= slash; b = e + 1) {
    e = relative.find('/', b);
    std::string dir = relative.substr(b, e - b);
    for (const char* d : {"tests", "test", "benchmarks", "benchmark", "bench", "examples", "example"})
      if (dir == d) return dir + "/";
  }
  std::string stem = file.substr(0, file.rfind('.'));
  if (file == "conftest.py") return file;
  if (stem.starts_with("test_")) return "test_*" + file.substr(stem.size());
  if (stem.size() > 5 && stem.ends_with("_test")) return "*_test" + file.substr(stem.size());
  return "";
}

std::string ProjectRoots::gitRoot(const std::string& dir) {
  if (auto it = gitRoots_.find(dir); it != gitRoots_.end()) return it->second;
  std::error_code ec;
  std::string root;
  if (fs::exists(fs::path(dir) / ".git", ec)) {  // a directory, or a worktree's file
    root = dir;
  } else {
    fs::path parent = fs::path(dir).parent_path();
    if (!parent.empty() && parent != fs::path(dir)) root = gitRoot(parent.string());
  }
  return gitRoots_[dir] = root;
}

std::string ProjectRoots::deliberateReason(const std::string& path, const std::string& configDir) {
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(path, ec), ec);
  std::string git = gitRoot(abs.parent_path().string());
  for (const std::string& root : {configDir, git, fs::current_path(ec).string()}) {
    if (root.empty()) continue;
    std::string rel = abs.lexically_relative(root).generic_string();
    if (!rel.empty() && !rel.starts_with("..")) return deliberatePathReason(rel);
  }
  return deliberatePathReason(abs.filename().string());
}

std::string deliberateLineReason(const model::Module& m, uint32_t line) {
  for (const auto& [first, last] : m.failureOnly)
    if (first <= line && line <= last) return "`raise`";
  // Any enclosing deliberate function makes the line deliberate: a helper nested in
  // `__repr__` formats too.
  for (const auto& f : m.functions)
    if (!f.deliberate.empty() && f.endLine && f.loc.line <= line && line <= f.endLine) return f.deliberate;
  return "";
}

}  // namespace sl
