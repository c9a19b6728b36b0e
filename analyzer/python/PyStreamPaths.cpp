#include "python/PyStreamPaths.h"

#include <cctype>
#include <cstring>

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
  // One memmem pass per needle ending in "(": every API named above ends in `stream(` or
  // `_event(`; what precedes the needle says which it is.
  auto each = [&](std::string_view needle, auto&& on) {
    const char* base = src.data();
    size_t at = 0;
    while (at < src.size()) {
      const void* hit = memmem(base + at, src.size() - at, needle.data(), needle.size());
      if (!hit) break;
      size_t pos = size_t(static_cast<const char*>(hit) - base);
      on(pos);
      at = pos + 1;
    }
  };
  auto endsAt = [&](size_t end, std::string_view word) {
    return end >= word.size() && src.substr(end - word.size(), word.size()) == word;
  };
  each("stream(", [&](size_t pos) {
    const size_t open = pos + 7;  // just past "stream("
    // `X.wait_stream(`: X waits, so it is a stream; so is the argument.
    if (endsAt(pos, ".wait_")) {
      if (std::string_view p = pathBefore(src, pos - 6); !p.empty()) out.emplace(p);
    }
    if (endsAt(pos, "wait_") || endsAt(pos, "record_") || endsAt(pos, "cuda.") || endsAt(pos, "set_"))
      if (std::string_view p = argumentAt(src, open); !p.empty()) out.emplace(p);
  });
  each("_event(", [&](size_t pos) {
    // `X.wait_event(` / `X.record_event(`: only streams have these methods.
    if (endsAt(pos, ".wait")) {
      if (std::string_view p = pathBefore(src, pos - 5); !p.empty()) out.emplace(p);
    } else if (endsAt(pos, ".record")) {
      if (std::string_view p = pathBefore(src, pos - 7); !p.empty()) out.emplace(p);
    }
  });
  return out;
}

}  // namespace sl::py
