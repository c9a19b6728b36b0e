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

}  // namespace sl
