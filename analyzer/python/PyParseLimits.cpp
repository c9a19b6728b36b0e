#include "python/PyParseLimits.h"

namespace sl::py {
namespace {

constexpr int kMaxNesting = 200;      // CPython's MAXLEVEL for the tokenizer's parentheses
constexpr size_t kMaxOperatorRun = 4096;

bool isOperatorChar(char c) {
  switch (c) {
    case '*': case '+': case '-': case '/': case '%': case '&': case '|': case '^': case '~':
    case '<': case '>': case '=': case '!': case '@': case '.': case ',': case ':': case ';':
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string beyondParseLimits(std::string_view text, Loc& where) {
  int depth = 0;
  size_t run = 0;
  uint32_t line = 1;
  size_t lineStart = 0;
  auto at = [&](size_t i) { where = {line, uint32_t(i - lineStart + 1)}; };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') { ++line; lineStart = i + 1; run = 0; continue; }
    if (c == '#') {  // a comment: to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      run = 0;
      continue;
    }
    if (c == '"' || c == '\'') {  // a string, single or triple quoted, escapes honoured
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
    if (c == '(' || c == '[' || c == '{') {
      if (++depth > kMaxNesting) { at(i); return "too many nested parentheses"; }
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    if (isOperatorChar(c)) {
      if (++run > kMaxOperatorRun) { at(i); return "invalid syntax (a run of over 4096 operator characters)"; }
    } else {
      run = 0;
    }
  }
  return "";
}

}  // namespace sl::py
