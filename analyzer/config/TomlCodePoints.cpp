#include "config/TomlCodePoints.h"

#include <array>
#include <utility>

namespace sl::toml_safe {
namespace {

struct Range {
  char32_t first, last;
};
// The code points whose bucket toml++'s switch lacks (see the header), in order.
constexpr std::array<Range, 4> kUnsafe{{{0x00A1, 0x0499}, {0x2C5E, 0x2FFF}, {0x3001, 0x3057}, {0xFB26, 0xFEFE}}};
constexpr char32_t kPrivateBase = 0xE000;

constexpr char32_t unsafeCount() {
  char32_t n = 0;
  for (auto r : kUnsafe) n += r.last - r.first + 1;
  return n;
}

char32_t swap(char32_t c) {
  char32_t index = 0;
  for (auto r : kUnsafe) {
    if (c >= r.first && c <= r.last) return kPrivateBase + index + (c - r.first);
    index += r.last - r.first + 1;
  }
  if (c >= kPrivateBase && c < kPrivateBase + unsafeCount()) {
    char32_t k = c - kPrivateBase;
    for (auto r : kUnsafe) {
      if (k <= r.last - r.first) return r.first + k;
      k -= r.last - r.first + 1;
    }
  }
  return c;
}

void append(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += char(c);
  } else if (c < 0x800) {
    out += char(0xC0 | (c >> 6));
    out += char(0x80 | (c & 0x3F));
  } else {  // every code point swapped is in the BMP
    out += char(0xE0 | (c >> 12));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  }
}

void restore(toml::node& n);

void restore(toml::array& a) {
  for (auto& e : a) restore(e);
}

void restore(toml::node& n) {
  if (auto* s = n.as_string()) s->get() = swapUnsafeCodePoints(s->get());
  else if (auto* a = n.as_array()) restore(*a);
  else if (auto* t = n.as_table()) restoreStrings(*t);
}

}  // namespace

std::string swapUnsafeCodePoints(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  for (size_t i = 0; i < text.size();) {
    auto b = static_cast<unsigned char>(text[i]);
    auto cont = [&](size_t k) { return i + k < text.size() && (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80; };
    char32_t c = 0;
    size_t n = 0;
    if (b >= 0xC2 && b < 0xE0 && cont(1)) {
      c = char32_t(b & 0x1F) << 6 | (text[i + 1] & 0x3F), n = 2;
    } else if (b >= 0xE0 && b < 0xF0 && cont(1) && cont(2)) {
      c = char32_t(b & 0x0F) << 12 | char32_t(text[i + 1] & 0x3F) << 6 | (text[i + 2] & 0x3F), n = 3;
    }
    char32_t s = n ? swap(c) : c;
    if (!n || s == c) {  // ASCII, 4-byte sequences, malformed bytes and untouched code points
      size_t len = n ? n : 1;
      out.append(text.substr(i, len));
      i += len;
      continue;
    }
    append(out, s);
    i += n;
  }
  return out;
}

void restoreStrings(toml::table& doc) {
  // Keys cannot be renamed in place: the table is rebuilt when one changes.
  bool keysChange = false;
  for (auto& [k, v] : doc) {
    restore(v);
    keysChange = keysChange || swapUnsafeCodePoints(k.str()) != k.str();
  }
  if (!keysChange) return;
  toml::table rebuilt;
  for (auto& [k, v] : doc) rebuilt.insert(swapUnsafeCodePoints(k.str()), std::move(v));
  doc = std::move(rebuilt);
}

}  // namespace sl::toml_safe
