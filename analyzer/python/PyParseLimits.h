// Input that the pinned tree-sitter runtime (0.20.7) cannot survive, refused before parsing:
// a node with 65,535 or more ERROR children makes it double-free (issue 17: a file of 65,535
// `(`, or `[` and 65,535 `*`). Two limits catch those shapes without rejecting any Python that
// CPython accepts: brackets nested deeper than 200 (CPython's own limit: "too many nested
// parentheses") and a run of more than 4,096 operator characters outside strings and comments
// (CPython reads it as invalid syntax). One pass over the bytes of each file about to be parsed
// (the frontend calls it; files the prefilter skips are never parsed).
#pragma once
#include <string>
#include <string_view>

#include "core/SourceFile.h"

namespace sl::py {

// "" when the text is within the limits; else CPython's kind of message, and where.
std::string beyondParseLimits(std::string_view text, Loc& where);

}  // namespace sl::py
