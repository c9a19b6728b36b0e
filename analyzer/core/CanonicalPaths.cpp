#include "core/CanonicalPaths.h"

#include <sys/stat.h>

#include <filesystem>

namespace sl {
namespace fs = std::filesystem;

std::string CanonicalPaths::file(const std::string& path) {
  std::error_code ec;
  struct stat st{};
  size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  // A symlink, a missing file, `.` or `..` as the last component: the library's answer whole.
  if (name.empty() || name == "." || name == ".." || ::lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode))
    return fs::weakly_canonical(fs::absolute(path, ec), ec).string();
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  auto it = dirs_.find(dir);
  if (it == dirs_.end()) it = dirs_.emplace(dir, fs::weakly_canonical(fs::absolute(dir, ec), ec).string()).first;
  const std::string& canon = it->second;
  return canon.ends_with('/') ? canon + name : canon + "/" + name;
}

}  // namespace sl
