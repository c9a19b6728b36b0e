#include "python/PyParseLimits.h"

#include <array>
#include <cstdint>

namespace sl::py {
namespace {

constexpr int kMaxNesting = 200;      // CPython's MAXLEVEL for the tokenizer's parentheses
constexpr size_t kMaxOperatorRun = 4096;

// Byte classes; everything else (letters, digits, blanks: most of a file) only ends a run.
enum : uint8_t { kBoring = 0, kOperator, kNewline, kComment, kQuote, kOpen, kClose };

constexpr auto kClasses = [] {
  std::array<uint8_t, 256> t{};
  for (unsigned char c : std::string_view("*+-/%&|^~<>=!@.,:;")) t[c] = kOperator;
  t['\n'] = kNewline;
  t['#'] = kComment;
  t['"'] = t['\''] = kQuote;
  t['('] = t['['] = t['{'] = kOpen;
  t[')'] = t[']'] = t['}'] = kClose;
  return t;
}();

}  // namespace

std::string beyondParseLimits(std::string_view text, Loc& where) {
  int depth = 0;
  size_t run = 0;
  uint32_t line = 1;
  size_t lineStart = 0;
  auto at = [&](size_t i) { where = {line, uint32_t(i - lineStart + 1)}; };
  for (size_t i = 0; i < text.size(); ++i) {
    const uint8_t cls = kClasses[static_cast<unsigned char>(text[i])];
    if (cls == kBoring) { run = 0; continue; }  // the common case: one table load
    const char c = text[i];
    if (cls == kNewline) { ++line; lineStart = i + 1; run = 0; continue; }
    if (cls == kComment) {  // a comment: to the end of the line
      size_t nl = text.find('\n', i);
      i = (nl == std::string_view::npos ? text.size() : nl) - 1;
      run = 0;
      continue;
    }
    if (cls == kQuote) {  // a string, single or triple quoted, escapes honoured
      bool triple = i + 2 < text.size() && text[i + 1] == c && text[i + 2] == c;
      size_t j = i + (triple ? 3 : 1);
      for (; j < text.size(); ++j) {
        if (text[j] == '\\') { ++j; continue; }
        if (text[j] == '\n') {
          if (!triple) break;  // an unterminated one-line string: the parser reports it
          ++line;
          lineStart = j + 1;
        }
        if (text[j] == c && (!triple || (j + 2 < text.size() && text[j + 1] == c && text[j + 2] == c))) {
          j += triple ? 2 : 0;
          break;
        }
      }
      i = j < text.size() && text[j] != '\n' ? j : j - 1;
      run = 0;
      continue;
    }
    if (cls == kOpen) {
      run = 0;
      if (++depth > kMaxNesting) { at(i); return "too many nested parentheses"; }
    } else if (cls == kClose) {
      run = 0;
      if (depth > 0) --depth;
    } else if (++run > kMaxOperatorRun) {  // kOperator
      at(i);
      return "invalid syntax (a run of over 4096 operator characters)";
    }
  }
  return "";
}

}  // namespace sl::py
