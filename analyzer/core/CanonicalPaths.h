#pragma once

#include <string>
#include <unordered_map>

namespace sl {

// fs::weakly_canonical(fs::absolute(path)) for many files of few directories. Each call of
// the library function resolves every component of the path with its own system calls (~16 per
// file of a repository); here a directory is resolved once and a file costs one lstat (a
// symlinked file is resolved whole). Not thread-safe; the file system is assumed not to change
// while the cache lives (one run of a command).
class CanonicalPaths {
 public:
  std::string file(const std::string& path);

 private:
  std::unordered_map<std::string, std::string> dirs_;  // directory as given -> canonical
};

// The directory of a file's path, as fs::path::parent_path says it for the paths file() gives
// ("/a/b.py" -> "/a", "/b.py" -> "/", "b.py" -> ""), without building a path object.
inline std::string parentDir(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : slash == 0 ? std::string("/") : path.substr(0, slash);
}

}  // namespace sl
