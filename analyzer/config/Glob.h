// Path globs for `exclude` and `per-file-ignores`, with the meaning ruff and .gitignore users
// expect: `*` and `?` stay within one path component, `**` spans directories, a pattern
// without `/` matches any component (`third_party`, `*_pb2.py`), and a pattern that matches a
// directory matches everything under it.
#pragma once
#include <regex>
#include <string>

namespace sl {

class Glob {
 public:
  explicit Glob(const std::string& pattern);  // throws std::regex_error on a malformed class
  // `relPath`: '/'-separated, relative to the directory the pattern is anchored at.
  bool matches(const std::string& relPath) const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::regex re_;
  bool anyComponent_;  // no '/' in the pattern
};

}  // namespace sl
