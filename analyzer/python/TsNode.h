// Thin helpers over tree-sitter's C API: node type checks, field access, source text, and
// cursor-based child iteration (ts_node_child(i) is linear in i; cursors are not).
#pragma once
#include <tree_sitter/api.h>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/SourceFile.h"

namespace sl::py {

// Node types as numbers. Comparing a node's symbol with a cached number replaces strcmp on
// ts_node_type, which every type test paid (~5 % of a check with the symbol-name lookup:
// callgrind, issue 12). Several symbols can carry one name (aliases; `block`, `lambda`, `type`
// each have two in the Python grammar), so every symbol maps to the first symbol of its name:
// two nodes compare equal exactly when their type names do.
class NodeTypes {
 public:
  static constexpr TSSymbol kNone = 0xFFFD;  // no symbol has the name (no grammar has 65533 symbols)
  // The table of `lang`, built once per process and language (the last one asked about is
  // remembered per thread: one language per process in practice).
  static const NodeTypes& of(const TSLanguage* lang) {
    thread_local const TSLanguage* lastLang = nullptr;
    thread_local const NodeTypes* last = nullptr;
    if (lang != lastLang) last = &build(lang), lastLang = lang;
    return *last;
  }
  // The number of a node's type name.
  TSSymbol typeOf(TSNode n) const {
    TSSymbol s = ts_node_symbol(n);
    return s < byName_.size() ? byName_[s] : s == kError ? error_ : errorRepeat_;
  }
  // The number of type name `name`, or kNone when no node can have it.
  TSSymbol id(const char* name) const;

 private:
  explicit NodeTypes(const TSLanguage* lang);
  static const NodeTypes& build(const TSLanguage* lang);
  static constexpr TSSymbol kError = 0xFFFF, kErrorRepeat = 0xFFFE;  // tree-sitter's built-in symbols
  std::vector<TSSymbol> byName_;  // symbol -> first symbol of its name
  TSSymbol error_ = kError, errorRepeat_ = kErrorRepeat;
  std::unordered_map<std::string_view, TSSymbol> ids_;
};

// Type names are string literals: their numbers are cached by address (like field ids below),
// per thread, in a direct-mapped table (a hash map's lookup cost about what strcmp did).
inline TSSymbol typeId(const NodeTypes& types, const char* name) {
  struct Slot {
    const NodeTypes* types;
    const char* name;
    TSSymbol id;
  };
  thread_local Slot slots[1024];
  Slot& s = slots[(reinterpret_cast<uintptr_t>(name) * 0x9E3779B97F4A7C15ull) >> 54];
  if (s.name != name || s.types != &types) s = {&types, name, types.id(name)};
  return s.id;
}

inline bool is(TSNode n, const char* type) {
  if (ts_node_is_null(n)) return false;
  const NodeTypes& types = NodeTypes::of(ts_tree_language(n.tree));
  return types.typeOf(n) == typeId(types, type);
}
// Field names are string literals: their ids are cached by address, which saves the grammar's
// linear name search on every access (it showed up at ~3 % of a check in callgrind).
// (A direct-mapped table per thread, like typeId's: cheaper than a hash map's lookup.)
inline TSNode field(TSNode n, const char* name) {
  struct Slot {
    const TSLanguage* lang;
    const char* name;
    TSFieldId id;
  };
  thread_local Slot slots[256];
  const TSLanguage* lang = ts_tree_language(n.tree);
  Slot& s = slots[(reinterpret_cast<uintptr_t>(name) * 0x9E3779B97F4A7C15ull) >> 56];
  if (s.name != name || s.lang != lang)
    s = {lang, name, ts_language_field_id_for_name(lang, name, uint32_t(std::strlen(name)))};
  return ts_node_child_by_field_id(n, s.id);
}
// The name of a parameter of a `def` (`x`, `x: int`, `x=1`, `x: int = 1`): an identifier node,
// or a node of another kind for `*args`, `**kw`, `/` and `*` (no name a caller binds by position).
inline TSNode parameterName(TSNode p) {
  if (!is(p, "typed_parameter") && !is(p, "typed_default_parameter") && !is(p, "default_parameter")) return p;
  TSNode n = field(p, "name");
  return ts_node_is_null(n) ? ts_node_named_child(p, 0) : n;
}
inline std::string_view text(TSNode n, std::string_view src) {
  if (ts_node_is_null(n)) return {};
  uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
  return e > src.size() || b > e ? std::string_view() : src.substr(b, e - b);
}
// A character of a Python identifier (ASCII: the names the frontend's text scans look for).
inline bool identChar(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
inline Loc locOf(TSNode n) {
  TSPoint p = ts_node_start_point(n);
  return Loc{p.row + 1, p.column + 1};
}

// for (TSNode c : NamedChildren(n)) ... — iterates named children with a cursor.
class NamedChildren {
 public:
  explicit NamedChildren(TSNode n) : node_(n) {}
  class It {
   public:
    It() = default;
    explicit It(TSNode n) : cur_(ts_tree_cursor_new(n)), live_(true), owned_(true) {
      if (!ts_tree_cursor_goto_first_child(&cur_)) finish();
      else skipUnnamed();
    }
    ~It() { if (owned_) ts_tree_cursor_delete(&cur_); }
    It(const It&) = delete;
    TSNode operator*() const { return ts_tree_cursor_current_node(&cur_); }
    It& operator++() {
      if (!ts_tree_cursor_goto_next_sibling(&cur_)) finish();
      else skipUnnamed();
      return *this;
    }
    bool operator!=(const It& o) const { return live_ != o.live_; }

   private:
    void skipUnnamed() {
      while (!ts_node_is_named(ts_tree_cursor_current_node(&cur_)))
        if (!ts_tree_cursor_goto_next_sibling(&cur_)) return finish();
    }
    void finish() { live_ = false; }
    TSTreeCursor cur_{};
    bool live_ = false;
    bool owned_ = false;
  };
  It begin() const { return It(node_); }
  It end() const { return It(); }

 private:
  TSNode node_;
};

}  // namespace sl::py
