#include "config/Glob.h"

namespace sl {
namespace {

std::string toRegex(const std::string& p) {
  std::string r;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '*' && i + 1 < p.size() && p[i + 1] == '*') {
      bool slash = i + 2 < p.size() && p[i + 2] == '/';
      r += slash ? "(.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c == '*') {
      r += "[^/]*";
    } else if (c == '?') {
      r += "[^/]";
    } else if (c == '[') {
      size_t close = p.find(']', i + 1);
      if (close == std::string::npos) { r += "\\["; continue; }
      std::string cls = p.substr(i + 1, close - i - 1);
      if (!cls.empty() && cls[0] == '!') cls[0] = '^';
      r += "[" + cls + "]";
      i = close;
    } else {
      if (std::string("\\^$.|+(){}").find(c) != std::string::npos) r += '\\';
      r += c;
    }
  }
  return r;
}

}  // namespace

Glob::Glob(const std::string& pattern) : pattern_(pattern) {
  std::string p = pattern;
  if (p.rfind("./", 0) == 0) p.erase(0, 2);
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  if (!p.empty() && p[0] == '/') p.erase(0, 1);  // anchored at the config's directory anyway
  anyComponent_ = pattern.find('/') == std::string::npos;
  re_ = std::regex(toRegex(p), std::regex::ECMAScript | std::regex::optimize);
}

bool Glob::matches(const std::string& relPath) const {
  // Try every leading part ("a", "a/b", "a/b/c.py"): a matched directory covers its contents.
  size_t start = 0;
  for (size_t end = relPath.find('/');; end = relPath.find('/', end + 1)) {
    std::string prefix = relPath.substr(0, end);
    std::string component = relPath.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (std::regex_match(prefix, re_) || (anyComponent_ && std::regex_match(component, re_))) return true;
    if (end == std::string::npos) return false;
    start = end + 1;
  }
}

}  // namespace sl
