#include "python/PyLargeLiterals.h"

#include <vector>

namespace sl::py {
namespace {

constexpr size_t npos = std::string_view::npos;

bool identByte(unsigned char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}
bool digit(char c) { return c >= '0' && c <= '9'; }

char closerOf(char open) { return open == '[' ? ']' : open == '(' ? ')' : '}'; }

// The index just past the string whose quote is at `q`, or npos when it does not end.
size_t skipString(std::string_view s, size_t q) {
  const char quote = s[q];
  const bool triple = q + 2 < s.size() && s[q + 1] == quote && s[q + 2] == quote;
  for (size_t i = q + (triple ? 3 : 1); i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '\n' && !triple) {
      return npos;
    } else if (s[i] == quote && (!triple || (i + 2 < s.size() && s[i + 1] == quote && s[i + 2] == quote))) {
      return i + (triple ? 3 : 1);
    }
  }
  return npos;
}

// A string prefix without f (f-strings hold expressions): r, u, b, br, rb in any case.
bool plainPrefix(std::string_view w) {
  std::string l;
  for (char c : w) l += char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return l == "r" || l == "u" || l == "b" || l == "br" || l == "rb";
}

// Where the literal of constants opening at `open` closes, or npos when it holds anything
// else. `firstComma`: its first top-level comma (npos when none).
size_t constantLiteral(std::string_view s, size_t open, size_t& firstComma) {
  std::vector<char> closers{closerOf(s[open])};
  firstComma = npos;
  for (size_t i = open + 1; i < s.size();) {
    const char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == ':' || c == '-' || c == '+') {
      ++i;
    } else if (c == '\\' && i + 1 < s.size() && (s[i + 1] == '\n' || s[i + 1] == '\r')) {
      i += 2;
    } else if (c == '#') {
      size_t nl = s.find('\n', i);
      if (nl == npos) return npos;
      i = nl;
    } else if (c == ',') {
      if (closers.size() == 1 && firstComma == npos) firstComma = i;
      ++i;
    } else if (c == '[' || c == '(' || c == '{') {
      closers.push_back(closerOf(c));
      ++i;
    } else if (c == ']' || c == ')' || c == '}') {
      if (c != closers.back()) return npos;
      closers.pop_back();
      if (closers.empty()) return i;
      ++i;
    } else if (c == '"' || c == '\'') {
      if ((i = skipString(s, i)) == npos) return npos;
    } else if (digit(c) || (c == '.' && i + 1 < s.size() && digit(s[i + 1]))) {  // 1, 0x1F, 1_000, .5, 1e-3, 2j
      for (++i; i < s.size(); ++i) {
        const char d = s[i];
        bool exponentSign = (d == '+' || d == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E');
        if (!identByte(static_cast<unsigned char>(d)) && d != '.' && !exponentSign) break;
      }
    } else if (identByte(static_cast<unsigned char>(c))) {
      size_t e = i;
      while (e < s.size() && identByte(static_cast<unsigned char>(s[e]))) ++e;
      std::string_view w = s.substr(i, e - i);
      if (e < s.size() && (s[e] == '"' || s[e] == '\'') && plainPrefix(w)) {
        if ((i = skipString(s, e)) == npos) return npos;
      } else if (w == "True" || w == "False" || w == "None") {
        i = e;
      } else {
        return npos;  // a name, a call, an f-string: not a constant
      }
    } else {
      return npos;
    }
  }
  return npos;
}

// Words after which a bracket starts an expression (`return [`, `x in (`), although they are names.
bool keywordBeforeExpression(std::string_view w) {
  for (const char* k : {"return", "in", "yield", "else", "and", "or", "not", "is", "assert", "await", "lambda"})
    if (w == k) return true;
  return false;
}

}  // namespace

std::optional<std::string> blankLargeLiterals(std::string_view text, size_t minBytes) {
  if (text.size() < minBytes) return std::nullopt;  // the common case: no literal can be that big
  std::optional<std::string> out;
  // What precedes a bracket decides whether it opens a literal: an operand (a name, a closing
  // bracket, a string) makes it a call, subscript or parameter list.
  bool afterOperand = false;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '#') {
      size_t nl = text.find('\n', i);
      i = nl == npos ? text.size() : nl;
    } else if (c == '"' || c == '\'') {
      size_t e = skipString(text, i);
      i = e == npos ? i + 1 : e;
      afterOperand = true;
    } else if (identByte(static_cast<unsigned char>(c))) {
      size_t e = i;
      while (e < text.size() && identByte(static_cast<unsigned char>(text[e]))) ++e;
      afterOperand = !keywordBeforeExpression(text.substr(i, e - i));
      i = e;
    } else if ((c == '[' || c == '(' || c == '{') && !afterOperand) {
      size_t comma = npos, close = constantLiteral(text, i, comma);
      if (close == npos) {  // not constants: look inside it
        ++i;
        continue;
      }
      if (close - i + 1 >= minBytes && comma != npos) {
        if (!out) out.emplace(text);
        for (size_t k = comma + 1; k < close; ++k)
          if ((*out)[k] != '\n' && (*out)[k] != '\r') (*out)[k] = ' ';
      }
      i = close + 1;
      afterOperand = true;
    } else {
      // Blanks keep what came before (a line break too: inside brackets it joins lines).
      afterOperand = c == ')' || c == ']' || c == '}' ||
                     (afterOperand && (c == ' ' || c == '\t' || c == '\\' || c == '\n' || c == '\r'));
      ++i;
    }
  }
  return out;
}

}  // namespace sl::py
