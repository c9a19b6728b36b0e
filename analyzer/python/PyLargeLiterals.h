// Large literals of constants (a 10 MB table of numbers, a long list of strings) are data: no
// rule looks inside them, but tree-sitter builds a node per element and a token — a 10 MB
// list of small numbers took 2.4 GB and seconds to parse (issue 17). Part of the prefilter
// (off under --no-prefilter): the parser gets a copy of the file in which such a literal keeps
// its brackets and first element and the rest of it is blanked (spaces, line ends kept), so
// every byte offset, line and column of the rest of the file is unchanged and the literal is
// still a non-empty list, tuple, dict or set of the same kind.
//
// A literal qualifies when it stands where an expression starts (not a call's arguments, a
// subscript or a parameter list), spans at least `minBytes`, has a comma at its top level,
// and holds only numbers, strings that are not f-strings, True/False/None, signs, commas,
// colons, nested brackets of the same, comments and line breaks. Like other code the
// prefilter does not parse, a syntax error inside it is not reported.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace sl::py {

inline constexpr size_t kLargeLiteralBytes = 256 << 10;

// The text to parse, when a literal was blanked; nullopt when the text is to be parsed as is.
std::optional<std::string> blankLargeLiterals(std::string_view text, size_t minBytes = kLargeLiteralBytes);

}  // namespace sl::py
