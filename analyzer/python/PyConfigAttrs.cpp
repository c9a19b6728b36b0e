#include "python/PyConfigAttrs.h"

#include <cctype>

#include "python/TsNode.h"

namespace sl::py {

namespace {
size_t skipSpaces(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return i;
}

// `=` that assigns (not `==`), or an augmented assignment (`+=`, `//=`, `|=`...), at `i`.
bool assignsAt(std::string_view s, size_t i) {
  i = skipSpaces(s, i);
  if (i < s.size() && s[i] == '=') return i + 1 >= s.size() || s[i + 1] != '=';
  size_t j = i;
  while (j < s.size() && j < i + 3 && std::string_view("+-*/%&|^<>@").find(s[j]) != std::string_view::npos) ++j;
  return j > i && j < s.size() && s[j] == '=' && (j + 1 >= s.size() || s[j + 1] != '=') &&
         !(j == i + 1 && (s[i] == '<' || s[i] == '>'));  // `<=` / `>=` compare
}

// What follows `self.<attr>` at `i` writes it: an assignment, an item or attribute store
// (`self.x[k] = v`, `self.cfg.flag = v`), an in-place method (`.append(`, `.add_(`), or a
// tuple target (`self.a, self.b = ...`).
bool writesAt(std::string_view s, size_t i) {
  if (assignsAt(s, i)) return true;
  i = skipSpaces(s, i);
  if (i >= s.size()) return false;
  if (s[i] == '[') {
    int depth = 0;
    for (size_t j = i; j < s.size() && s[j] != '\n'; ++j) {
      if (s[j] == '[') ++depth;
      else if (s[j] == ']' && --depth == 0) return assignsAt(s, j + 1);
    }
    return false;
  }
  if (s[i] == '.') {
    size_t j = i + 1;
    while (j < s.size() && identChar(s[j])) ++j;
    std::string_view name = s.substr(i + 1, j - i - 1);
    static constexpr std::string_view kMutators[] = {"append", "extend", "insert", "pop", "popitem", "clear", "update",
                                                     "add", "remove", "discard", "setdefault", "appendleft", "sort",
                                                     "reverse"};
    for (auto m : kMutators)
      if (name == m) return true;
    if (!name.empty() && name.back() == '_' && j < s.size() && s[j] == '(') return true;  // `fill_(`, `add_(`
    return assignsAt(s, j);
  }
  if (s[i] == ',') {  // a tuple target: an `=` later on the line, outside brackets
    int depth = 0;
    for (size_t j = i; j < s.size() && s[j] != '\n'; ++j) {
      if (s[j] == '(' || s[j] == '[' || s[j] == '{') ++depth;
      else if (s[j] == ')' || s[j] == ']' || s[j] == '}') --depth;
      else if (depth == 0 && s[j] == '=' && (j + 1 >= s.size() || s[j + 1] != '=') && j > 0 &&
               std::string_view("=!<>").find(s[j - 1]) == std::string_view::npos)
        return true;
    }
  }
  return false;
}
// What a plain assignment or an annotated one at `i` (just after `self.<attr>`) stores:
// 1 a host value, 0 nothing known (`None`), -1 anything else; 0 too when `i` is no such
// assignment (an item store, an update in place, an augmented assignment).
int storesHostValue(std::string_view s, size_t i) {
  i = skipSpaces(s, i);
  auto startsWith = [&](size_t at, std::string_view w) { return s.substr(at, w.size()) == w; };
  bool hostType = false;
  if (i < s.size() && s[i] == ':' && !startsWith(i, ":=")) {  // an annotation, up to its `=`
    size_t t = skipSpaces(s, i + 1);
    for (std::string_view h : {"set[", "Set[", "dict[", "Dict[", "list[", "List[", "deque", "Deque", "int", "float",
                               "str", "bool", "Optional[int]", "Optional[str]", "DefaultDict["})
      if (startsWith(t, h) && !(h.size() <= 5 && t + h.size() < s.size() && identChar(s[t + h.size()]))) hostType = true;
    while (i < s.size() && s[i] != '=' && s[i] != '\n') ++i;
    if (i >= s.size() || s[i] != '=') return hostType ? 1 : 0;  // `self.x: set[int]` alone
  }
  if (i >= s.size() || s[i] != '=' || startsWith(i, "==")) return 0;
  size_t v = skipSpaces(s, i + 1);
  if (v >= s.size()) return 0;
  if (hostType) return 1;
  if (startsWith(v, "None") && !(v + 4 < s.size() && identChar(s[v + 4]))) return 0;
  const char c = s[v];
  if (c == '[' || c == '{' || c == '"' || c == '\'' || startsWith(v, "()") || std::isdigit(static_cast<unsigned char>(c)))
    return 1;
  for (std::string_view h : {"True", "False", "f\"", "f'", "set(", "dict(", "list(", "tuple(", "deque(", "defaultdict(",
                             "OrderedDict(", "Counter(", "collections.", "queue.", "Queue(", "threading.", "weakref."})
    if (startsWith(v, h)) return 1;
  return -1;
}
}  // namespace

void ConfigAttrs::index(std::string_view src) const {
  indexed_ = true;
  constexpr std::string_view kSelf = "self.";
  for (size_t at = src.find(kSelf); at != std::string_view::npos; at = src.find(kSelf, at + 1)) {
    if (at > 0 && (identChar(src[at - 1]) || src[at - 1] == '.')) continue;  // `myself.x`
    size_t b = at + kSelf.size(), end = b;
    while (end < src.size() && identChar(src[end])) ++end;
    if (end == b) continue;
    bool deleted = at >= 4 && src.substr(at - 4, 4) == "del ";
    const int host = deleted ? -1 : storesHostValue(src, end);
    if (!deleted && !writesAt(src, end) && host == 0) continue;
    Writes& w = writes_[std::string(src.substr(b, end - b))];
    w.hostAssigns += host > 0;
    w.otherAssigns += host < 0;
    const Init* in = nullptr;
    for (const auto& i : inits_)
      if (at >= i.begin && at < i.end) in = &i;
    if (in && !deleted) w.initClasses.push_back(in->cls);
    else w.elsewhere = true;
  }
}

bool ConfigAttrs::isConfig(std::string_view src, const std::string& cls, std::string_view attr) const {
  if (inits_.empty()) return false;
  if (!indexed_) index(src);
  auto it = writes_.find(std::string(attr));
  if (it == writes_.end() || it->second.elsewhere) return false;
  for (const auto& c : it->second.initClasses)
    if (c == cls) return true;
  return false;
}

bool ConfigAttrs::hostValued(std::string_view src, std::string_view attr) const {
  if (!indexed_) index(src);
  auto it = writes_.find(std::string(attr));
  return it != writes_.end() && it->second.hostAssigns > 0 && it->second.otherAssigns == 0;
}

}  // namespace sl::py
