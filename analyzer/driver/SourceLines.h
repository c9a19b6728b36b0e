// A Python module's text as lines, with the block structure the deliberate-code policy reads
// from text alone (DeliberatePolicy.cpp, DeliberateShapes.cpp): indentation, where a block
// ends, the `def` around a line, and who calls a function of the module.
// The frontend's lowering may not cover these lines (the prefilter parses only what can
// matter), so these questions are answered from the text, not from the tree.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace sl {

bool identChar(char c);

// `code` begins with the keyword `word` (`if x:`, not `iffy`).
bool startsWithWord(std::string_view code, std::string_view word);

class Lines {
 public:
  explicit Lines(std::string_view src);
  uint32_t size() const { return uint32_t(lines_.size()); }
  std::string_view raw(uint32_t line) const { return line >= 1 && line <= size() ? lines_[line - 1] : ""; }
  // The line without its indentation, its trailing comment (a `#` outside quotes is rare in
  // the headers this looks at) and trailing blanks; "" for blank and comment lines.
  std::string_view code(uint32_t line) const;
  size_t indent(uint32_t line) const;
  // The last line of the block opened by the header starting at `header` (a header continued
  // over several lines ends at the first line ending in ':'): the line before the first code
  // line indented no deeper than the header, capped at `limit`.
  uint32_t blockEnd(uint32_t header, uint32_t limit) const;

 private:
  std::vector<std::string_view> lines_;
};

// The `def` whose body holds `line`, by indentation: its header line, or 0 at module or class
// level.
uint32_t enclosingDefLine(const Lines& text, uint32_t line);

// The name a `def` header line defines (`def f(` / `async def f(`).
std::string defName(std::string_view headerCode);

// Whether every mention of function `name` in the module, its own `def` aside, is a call
// made in another function (outside lines [ownFirst, ownLast]) that `accept(callerDefLine,
// callLine)` approves. Returns the first caller's name, or "" when a mention is something else
// (a callback handed on, a module-level call, a call `accept` refuses) or there is no call.
// Mentions in prose (comments, strings, backticks) are not uses.
std::string callersOnly(const Lines& text, std::string_view name, uint32_t ownFirst, uint32_t ownLast,
                        const std::function<bool(uint32_t, uint32_t)>& accept);

}  // namespace sl
