// Valid Python that the pinned tree-sitter-python grammar (0.23.6, the newest with the ABI
// Debian's runtime accepts) rejects, and how each is repaired so that such files are analysed
// like any other instead of exiting 2 with a "syntax error".
//
// 1. A star expression in an unparenthesized tuple whose operand is not a name, attribute or
//    subscript: `return None, *(None,) * 2` (Megatron-LM), `x = a, *-b`,
//    `yield 1, *(a or ())`, `return 1, *await f()`. The grammar's expression_list admits only
//    expressions; `*name` gets in only through the pattern alias (list_splat_pattern:
//    identifier, attribute, subscript). Parenthesized tuples, lists, sets and calls are fine.
//    Repair: the `*` of such a star expression — a `*` token that the parser left in an ERROR
//    node (or in a list_splat whose operand is one), right after `,`, `=`, an augmented
//    assignment operator, `return`, `yield` or `in`, where `*` can only be a star, never a
//    multiplication — becomes a space, and the file is parsed again. The repaired tree is
//    kept only when it has no error left, so real syntax errors are still reported from the
//    original parse. The text keeps its length, so every position is the file's; dropping the
//    star only changes a tuple's shape, which no rule reads.
// 2. A format spec whose fill character is `=` in an f-string: `f"{title:=^{width}}"`,
//    `f"{x:=<10}"` (lmdeploy). Outside parentheses, `:=` in a replacement field is the spec's
//    `:` and its fill, never a walrus, but the grammar reads a named_expression and fails on
//    what follows. Repair: the `=` becomes a space (a blank fill), when the named_expression
//    sits directly in the interpolation and holds the error.
// Checked against CPython 3.11-3.13 (tests/data/python/valid_forms.py lists the forms tried,
// from PEP 646 star subscripts to PEP 701 f-strings, PEP 695 generics and `except*`).
#pragma once
#include <tree_sitter/api.h>

#include <string_view>

namespace sl::py {

// A tree for `src` parsed after repairing the gaps above inside `broken`'s errors, or nullptr
// when there is nothing to repair or the repair leaves an error. The caller owns the result.
TSTree* reparseGrammarGaps(TSParser* parser, std::string_view src, const TSTree* broken);

}  // namespace sl::py
