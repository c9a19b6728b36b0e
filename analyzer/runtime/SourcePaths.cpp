#include <sys/stat.h>

#include <filesystem>
#include <map>

#include "runtime/Pairing.h"

namespace sl::runtime {

namespace {

namespace fs = std::filesystem;

bool isFile(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Relative to the current directory when inside it.
std::string display(const fs::path& p) {
  std::error_code ec;
  fs::path rel = fs::weakly_canonical(p, ec).lexically_relative(fs::current_path(ec));
  return !rel.empty() && *rel.begin() != ".." ? rel.generic_string() : p.generic_string();
}

}  // namespace

std::string localSourcePath(const std::string& path, const std::vector<std::string>& roots) {
  if (path.empty() || path[0] == '<') return path;
  if (isFile(path)) return display(path);
  fs::path p(path);
  std::vector<fs::path> tails;  // longest first: a/b/c.py, b/c.py, c.py
  std::vector<std::string> parts;
  for (const auto& c : p.relative_path()) parts.push_back(c.string());
  for (size_t i = 0; i < parts.size(); ++i) {
    fs::path tail;
    for (size_t j = i; j < parts.size(); ++j) tail /= parts[j];
    tails.push_back(tail);
  }
  std::vector<fs::path> bases = {fs::path(".")};
  for (const auto& r : roots) bases.push_back(isFile(r) ? fs::path(r).parent_path() : fs::path(r));
  for (const auto& tail : tails) {
    if (tail == tails.back() && tails.size() > 1) break;  // a bare file name is too weak a match
    for (const auto& b : bases)
      if (isFile((b / tail).string())) return display(b / tail);
  }
  return path;
}

namespace {
std::vector<std::string>& rootsStore() {
  static std::vector<std::string> roots;
  return roots;
}
}  // namespace

void setSourceRoots(std::vector<std::string> roots) { rootsStore() = std::move(roots); }
const std::vector<std::string>& sourceRoots() { return rootsStore(); }

void relocateSources(ProcessTimeline& t, const std::vector<std::string>& roots) {
  std::map<std::string, std::string> cache;
  for (auto& l : t.locations) {
    auto [it, fresh] = cache.emplace(l.path, std::string());
    if (fresh) it->second = localSourcePath(l.path, roots);
    l.path = it->second;
  }
}

}  // namespace sl::runtime
