#include "driver/SourceLines.h"

#include <cctype>

#include "driver/DeliberateCode.h"

namespace sl {

bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool startsWithWord(std::string_view code, std::string_view word) {
  return code.starts_with(word) && code.size() > word.size() && !identChar(code[word.size()]);
}

Lines::Lines(std::string_view src) {
  for (size_t b = 0; b <= src.size();) {
    size_t e = src.find('\n', b);
    if (e == std::string_view::npos) e = src.size();
    std::string_view l = src.substr(b, e - b);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    lines_.push_back(l);
    b = e + 1;
  }
}

std::string_view Lines::code(uint32_t line) const {
  std::string_view l = raw(line);
  size_t b = l.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  l.remove_prefix(b);
  if (size_t hash = l.find(" #"); hash != std::string_view::npos) l = l.substr(0, hash);
  if (!l.empty() && l[0] == '#') return "";
  while (!l.empty() && (l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
  return l;
}

size_t Lines::indent(uint32_t line) const {
  std::string_view l = raw(line);
  size_t b = l.find_first_not_of(" \t");
  return b == std::string_view::npos ? 0 : b;
}

uint32_t Lines::blockEnd(uint32_t header, uint32_t limit) const {
  uint32_t open = header;
  while (open < limit && !code(open).ends_with(":")) ++open;
  size_t in = indent(header);
  uint32_t last = open;
  for (uint32_t l = open + 1; l <= limit; ++l) {
    if (code(l).empty()) continue;
    if (indent(l) <= in) break;
    last = l;
  }
  return last;
}

uint32_t enclosingDefLine(const Lines& text, uint32_t line) {
  size_t in = text.indent(line);
  for (uint32_t l = line; l-- > 1;) {
    std::string_view c = text.code(l);
    // The closing line of a header written over several lines (`) -> None:`) is not a block.
    if (c.empty() || text.indent(l) >= in || c[0] == ')' || c[0] == ']' || c[0] == '}') continue;
    in = text.indent(l);
    if (c.starts_with("async ")) c.remove_prefix(6);
    if (startsWithWord(c, "def")) return l;
    if (in == 0 || startsWithWord(c, "class")) return 0;
  }
  return 0;
}

std::string defName(std::string_view d) {
  size_t at = d.find("def ");
  if (at == std::string_view::npos) return "";
  size_t open = at + 4, close = d.find('(', open);
  return std::string(d.substr(open, close == std::string_view::npos ? std::string_view::npos : close - open));
}

std::string callersOnly(const Lines& text, std::string_view name, uint32_t ownFirst, uint32_t ownLast,
                        const std::function<bool(uint32_t, uint32_t)>& accept) {
  if (name.empty()) return "";
  std::string caller;
  for (uint32_t l = 1; l <= text.size(); ++l) {
    std::string_view raw = text.raw(l);
    for (size_t at = raw.find(name); at != std::string_view::npos; at = raw.find(name, at + name.size())) {
      size_t after = at + name.size();
      if ((at > 0 && identChar(raw[at - 1])) || (after < raw.size() && identChar(raw[after]))) continue;
      if (mentionInProse(raw, at, name.size())) continue;  // a docstring or message naming it
      std::string_view before = raw.substr(0, at);
      while (!before.empty() && (before.back() == ' ' || before.back() == '\t')) before.remove_suffix(1);
      if (before.ends_with("def") && (before.size() == 3 || !identChar(before[before.size() - 4]))) continue;
      if (after >= raw.size() || raw[after] != '(') return "";  // a callback, a name handed on
      uint32_t def = enclosingDefLine(text, l);
      if (!def || (ownFirst <= def && def <= ownLast)) return "";  // module level, recursion, a nested function
      if (!accept(def, l)) return "";
      if (caller.empty()) caller = defName(text.code(def));
    }
  }
  return caller;
}

}  // namespace sl
