// `--diff REV`: the lines changed since REV, so a pull request is judged on what it touches.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace sl {

// A file name as `git diff` prints it after "+++ ": C-quoted ("\"b/caf\\303\\251.py\"") when it has
// special characters, else as it is (with the TAB git adds after a name that has a space).
std::string unquoteGitPath(const std::string& field);

class ChangedLines {
 public:
  // Asks git, in the repository holding `where` (a file or directory: the first input, so
  // `streamlint check --diff REV /path/to/repo` works from anywhere), for `git diff -U0 REV`
  // plus untracked, not ignored files (every line of those is new). False with `error` set
  // when git fails.
  bool load(const std::string& rev, const std::string& where, std::string& error);
  // Parses unified diff text whose paths are relative to `top` (exposed for tests).
  void parseDiff(const std::string& diff, const std::string& top);
  void addWholeFile(const std::string& absPath) { whole_.insert(absPath); }
  bool contains(const std::string& path, uint32_t line) const;
  // Every file with an added or changed line (absolute, canonical).
  std::vector<std::string> changedFiles() const;
  // The C/C++ sources a run must re-analyse: the changed ones, or unset (all) when a changed
  // file could change other translation units (a header, a build file).
  std::optional<std::vector<std::string>> cppSourcesToAnalyse() const;

 private:
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> ranges_;  // abs path -> [first, last]
  std::set<std::string> whole_;
};

}  // namespace sl
