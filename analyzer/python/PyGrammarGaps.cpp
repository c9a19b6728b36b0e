#include "python/PyGrammarGaps.h"

#include <cstring>
#include <string>

#include "python/TsNode.h"

namespace sl::py {
namespace {

// Tokens after which `*` starts a star expression (never a multiplication).
bool opensStarExpression(const char* prev) {
  for (const char* t : {",", "=", "return", "yield", "in", "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=",
                        ">>=", "<<=", "&=", "^=", "|="})
    if (!std::strcmp(prev, t)) return true;
  return false;
}

// The parser's shapes for a rejected star expression: the `*` is a child of the ERROR node,
// or of a list_splat that holds the ERROR as its operand.
bool strandedStar(TSNode star) {
  TSNode parent = ts_node_parent(star);
  if (is(parent, "ERROR")) return true;
  if (!is(parent, "list_splat")) return false;
  for (uint32_t i = 0, n = ts_node_child_count(parent); i < n; ++i)
    if (is(ts_node_child(parent, i), "ERROR")) return true;
  return false;
}

// Whether an operand follows the `*` ending at `at` on its line: `* *x`, `a, *` and `a, *)`
// are no star expressions, and must stay errors.
bool operandFollows(std::string_view src, size_t at) {
  while (at < src.size() && (src[at] == ' ' || src[at] == '\t')) ++at;
  return at < src.size() && !std::strchr("*\r\n#),]};=:", src[at]);
}

// 2. `f"{title:=^{width}}"`: inside an f-string's braces an unparenthesized `:=` is a format
// spec whose fill character is `=`, but the grammar reads a walrus and fails on what follows.
bool formatSpecNotWalrus(TSNode walrus) {
  TSNode named = ts_node_parent(walrus);
  return is(named, "named_expression") && ts_node_has_error(named) && is(ts_node_parent(named), "interpolation");
}

}  // namespace

TSTree* reparseGrammarGaps(TSParser* parser, std::string_view src, const TSTree* broken) {
  std::string fixed;
  const char* prev = "";
  // Leaves in document order (iteratively: trees can be deep).
  TSTreeCursor cur = ts_tree_cursor_new(ts_tree_root_node(broken));
  for (bool more = true; more;) {
    TSNode n = ts_tree_cursor_current_node(&cur);
    if (ts_tree_cursor_goto_first_child(&cur)) continue;
    if (!ts_node_is_missing(n) && !is(n, "comment")) {
      if (is(n, "*") && opensStarExpression(prev) && operandFollows(src, ts_node_end_byte(n)) && strandedStar(n)) {
        if (fixed.empty()) fixed.assign(src);
        fixed[ts_node_start_byte(n)] = ' ';
      } else if (is(n, ":=") && formatSpecNotWalrus(n)) {
        if (fixed.empty()) fixed.assign(src);
        fixed[ts_node_start_byte(n) + 1] = ' ';  // `: ` : the same spec with a blank fill
      }
      prev = ts_node_type(n);
    }
    while (!(more = ts_tree_cursor_goto_next_sibling(&cur)))
      if (!ts_tree_cursor_goto_parent(&cur)) break;
  }
  ts_tree_cursor_delete(&cur);
  if (fixed.empty()) return nullptr;
  TSTree* t = ts_parser_parse_string(parser, nullptr, fixed.data(), uint32_t(fixed.size()));
  if (t && ts_node_has_error(ts_tree_root_node(t))) {
    ts_tree_delete(t);
    return nullptr;
  }
  return t;
}

}  // namespace sl::py
