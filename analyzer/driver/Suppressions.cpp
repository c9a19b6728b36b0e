#include "driver/Suppressions.h"

#include <cctype>

namespace sl {
namespace {

// Does the rule list that follows a marker (": A, B" or "(A,B)") name `rule`? An absent list
// means every rule.
bool listNames(std::string_view rest, std::string_view rule) {
  size_t i = 0;
  while (i < rest.size() && rest[i] == ' ') ++i;
  if (i >= rest.size() || (rest[i] != ':' && rest[i] != '(')) return true;
  char close = rest[i] == '(' ? ')' : '\n';
  for (++i; i < rest.size() && rest[i] != close;) {
    while (i < rest.size() && (rest[i] == ' ' || rest[i] == ',')) ++i;
    size_t b = i;
    while (i < rest.size() && std::isalnum(static_cast<unsigned char>(rest[i]))) ++i;
    if (i == b) break;
    if (rest.substr(b, i - b) == rule) return true;
  }
  return false;
}

bool marker(std::string_view line, std::string_view tag, std::string_view rule) {
  for (size_t p = line.find(tag); p != std::string_view::npos; p = line.find(tag, p + 1)) {
    std::string_view rest = line.substr(p + tag.size());
    if (tag == "NOLINT" && rest.rfind("NEXTLINE", 0) == 0) continue;
    if (listNames(rest, rule)) return true;
  }
  return false;
}

}  // namespace

bool suppressedBy(std::string_view line, std::string_view previous, std::string_view rule) {
  size_t hash = line.find('#');
  if (hash != std::string_view::npos && marker(line.substr(hash), "noqa", rule)) return true;
  size_t slashes = line.find("//");
  if (slashes != std::string_view::npos && marker(line.substr(slashes), "NOLINT", rule)) return true;
  size_t prev = previous.find("//");
  return prev != std::string_view::npos && marker(previous.substr(prev), "NOLINTNEXTLINE", rule);
}

}  // namespace sl
