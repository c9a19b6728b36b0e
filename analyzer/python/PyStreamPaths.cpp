#include "python/PyStreamPaths.h"

#include <cctype>

namespace sl::py {
namespace {

bool pathChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// The dotted name that ends right before `end` ("self.s" in "self.s.wait_stream("); "" when
// it is not a plain name (a call's result, a subscript) or starts with a digit or a dot.
std::string_view pathBefore(std::string_view src, size_t end) {
  size_t b = end;
  while (b > 0 && pathChar(src[b - 1])) --b;
  std::string_view p = src.substr(b, end - b);
  if (p.empty() || p.front() == '.' || p.back() == '.' || std::isdigit(static_cast<unsigned char>(p.front()))) return {};
  if (b > 0 && (src[b - 1] == ')' || src[b - 1] == ']')) return {};
  return p;
}

// The dotted name that is the whole first argument starting at `begin` (`X)` or `X,`).
std::string_view argumentAt(std::string_view src, size_t begin) {
  while (begin < src.size() && src[begin] == ' ') ++begin;
  size_t e = begin;
  while (e < src.size() && pathChar(src[e])) ++e;
  size_t after = e;
  while (after < src.size() && src[after] == ' ') ++after;
  if (after >= src.size() || (src[after] != ')' && src[after] != ',')) return {};
  std::string_view p = src.substr(begin, e - begin);
  if (p.empty() || p.front() == '.' || p.back() == '.' || std::isdigit(static_cast<unsigned char>(p.front()))) return {};
  return p;
}

}  // namespace

std::unordered_set<std::string> streamPaths(std::string_view src) {
  std::unordered_set<std::string> out;
  // Methods only streams have: their receiver is a stream.
  for (std::string_view m : {".wait_stream(", ".wait_event(", ".record_event("})
    for (size_t at = src.find(m); at != std::string_view::npos; at = src.find(m, at + 1))
      if (std::string_view p = pathBefore(src, at); !p.empty()) out.emplace(p);
  // Calls whose first argument is a stream.
  for (std::string_view m : {"wait_stream(", "record_stream(", "cuda.stream(", "set_stream("})
    for (size_t at = src.find(m); at != std::string_view::npos; at = src.find(m, at + 1))
      if (std::string_view p = argumentAt(src, at + m.size()); !p.empty()) out.emplace(p);
  return out;
}

}  // namespace sl::py
