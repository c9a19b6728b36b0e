#include "driver/FileWalk.h"

#include <fnmatch.h>
#include <sys/stat.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unordered_set>

#include "core/CanonicalPaths.h"

namespace sl {
namespace fs = std::filesystem;
namespace {

bool endsWith(const std::string& s, const char* suf) {
  size_t n = std::strlen(suf);
  return s.size() >= n && s.compare(s.size() - n, n, suf) == 0;
}

const char* kSkippedDirs[] = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".tox", ".nox",
                              ".mypy_cache", ".pytest_cache", ".ruff_cache", "site-packages",
                              ".venv", "venv", ".eggs", "build", "dist", "_build", ".deps"};

// One .gitignore's patterns, matched relative to the directory holding it.
struct IgnoreFile {
  std::string dir;
  std::vector<std::pair<std::string, bool>> patterns;  // (glob, negated)
};

void loadIgnore(const std::string& dir, std::vector<IgnoreFile>& stack) {
  std::ifstream in(dir + "/.gitignore");
  if (!in) return;
  IgnoreFile f{dir, {}};
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    bool neg = line[0] == '!';
    if (neg) line.erase(0, 1);
    f.patterns.emplace_back(line, neg);
  }
  stack.push_back(std::move(f));
}

bool ignored(const std::string& path, bool isDir, const std::vector<IgnoreFile>& stack) {
  bool result = false;
  for (const auto& f : stack) {
    std::string rel = path.substr(f.dir.size() + 1);
    std::string base = rel.substr(rel.rfind('/') + 1);
    for (const auto& [pat, neg] : f.patterns) {
      std::string p = pat;
      bool dirOnly = !p.empty() && p.back() == '/';
      if (dirOnly) p.pop_back();
      if (dirOnly && !isDir) continue;
      bool anchored = p.find('/') != std::string::npos;
      if (!p.empty() && p[0] == '/') p.erase(0, 1);
      bool hit = anchored ? fnmatch(p.c_str(), rel.c_str(), FNM_PATHNAME) == 0
                          : fnmatch(p.c_str(), base.c_str(), 0) == 0;
      if (hit) result = !neg;
    }
  }
  return result;
}

bool isVirtualenv(const std::string& dir) {
  struct stat st{};
  return ::stat((dir + "/pyvenv.cfg").c_str(), &st) == 0;
}

// `./src/a.py` -> `src/a.py` (also `././a.py`); `./` alone stays.
std::string withoutDotSlash(std::string path) {
  while (path.size() > 2 && path.compare(0, 2, "./") == 0) path.erase(0, path.find_first_not_of('/', 2));
  return path;
}

void add(const std::string& given, WalkResult& out, bool named = false) {
  std::string path = withoutDotSlash(given);
  switch (classifyPath(path)) {
    case InputLang::Python: out.python.push_back(path); break;
    case InputLang::Cpp:
      if (named) out.cppNamed.insert(path);
      out.cpp.push_back(path);
      break;
    case InputLang::Other: break;
  }
}

void walkDir(const std::string& dir, std::vector<IgnoreFile>& ignores, WalkResult& out) {
  size_t depth = ignores.size();
  loadIgnore(dir, ignores);
  std::error_code ec;
  std::vector<std::pair<std::string, bool>> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    bool isLink = it->is_symlink(e2);
    bool isDir = !isLink && it->is_directory(e2);
    std::string p = it->path().string();
    if (isLink) {
      // Directory symlinks are not followed (no loops, no duplicates); file symlinks are.
      struct stat st{};
      if (::stat(p.c_str(), &st) != 0) {
        if (classifyPath(p) != InputLang::Other)
          out.errors.push_back(withoutDotSlash(p) + ": " + (errno == ELOOP ? "symlink loop" : std::strerror(errno)));
        continue;
      }
      if (S_ISDIR(st.st_mode)) continue;
    }
    entries.emplace_back(std::move(p), isDir);
  }
  if (ec) out.errors.push_back(dir + ": " + ec.message());
  std::sort(entries.begin(), entries.end());
  for (const auto& [p, isDir] : entries) {
    std::string name = p.substr(p.rfind('/') + 1);
    if (isDir) {
      bool skip = false;
      for (const char* s : kSkippedDirs) skip |= name == s;
      if (skip || isVirtualenv(p) || ignored(p, true, ignores)) continue;
      walkDir(p, ignores, out);
    } else if (!ignored(p, false, ignores)) {
      add(p, out);
    }
  }
  ignores.resize(depth);
}

}  // namespace

InputLang classifyPath(const std::string& p) {
  if (endsWith(p, ".py") || endsWith(p, ".pyi")) return InputLang::Python;
  for (const char* e : {".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".C"})
    if (endsWith(p, e)) return InputLang::Cpp;
  return InputLang::Other;
}

// Each file once, where it first came (`check t.py t.py`, or `dir dir/t.py`: analysed twice, every
// finding was doubled and --fix inserted its lines twice). Same file = same canonical path.
void dropRepeats(std::vector<std::string>& files, CanonicalPaths& canonical, std::unordered_set<std::string>& seen) {
  std::vector<std::string> kept;
  for (auto& f : files)
    if (seen.insert(canonical.file(f)).second) kept.push_back(std::move(f));
  files = std::move(kept);
}

WalkResult walkInputs(const std::vector<std::string>& paths) {
  WalkResult out;
  for (std::string p : paths) {
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    struct stat st{};
    if (::stat(p.c_str(), &st) != 0) {
      out.errors.push_back(p + ": " + (errno == ELOOP ? "symlink loop" : std::strerror(errno)));
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      std::vector<IgnoreFile> ignores;
      walkDir(p, ignores, out);
    } else if (classifyPath(p) == InputLang::Other) {
      // A named file without a known extension counts as Python only with a python shebang.
      std::ifstream in(p);
      std::string first;
      std::getline(in, first);
      if (first.rfind("#!", 0) == 0 && first.find("python") != std::string::npos) out.python.push_back(withoutDotSlash(p));
      else out.errors.push_back(p + ": not a Python or C/C++/CUDA source (by extension or shebang)");
    } else {
      add(p, out, true);
    }
  }
  CanonicalPaths canonical;
  std::unordered_set<std::string> seen;
  dropRepeats(out.python, canonical, seen);
  dropRepeats(out.cpp, canonical, seen);
  return out;
}

}  // namespace sl
