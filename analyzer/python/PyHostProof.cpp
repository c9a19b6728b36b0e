#include "python/PyHostProof.h"

#include <iterator>
#include <unordered_map>
#include <vector>

namespace sl::py {

namespace {

struct Scan {
  std::string_view src;
  const Imports& imports;
  std::unordered_map<std::string, std::vector<TSNode>> assigned;  // name -> right-hand sides
  std::vector<TSNode> operators, calls;

  // One cursor over the body (a cursor per node, as NamedChildren makes, costs more); nested
  // functions, classes and lambdas are not entered. The cursor's root is `n`: it never leaves it.
  void walk(TSNode n) {
    TSTreeCursor c = ts_tree_cursor_new(n);
    for (bool more = true; more;) {
      TSNode t = ts_tree_cursor_current_node(&c);
      bool enter = !is(t, "function_definition") && !is(t, "class_definition") && !is(t, "lambda");
      if (enter && ts_node_is_named(t)) visit(t);
      if (enter && ts_tree_cursor_goto_first_child(&c)) continue;
      while (!(more = ts_tree_cursor_goto_next_sibling(&c)))
        if (!ts_tree_cursor_goto_parent(&c)) break;
    }
    ts_tree_cursor_delete(&c);
  }

  void visit(TSNode t) {
    if (is(t, "assignment")) {
      TSNode left = field(t, "left"), right = field(t, "right");
      if (is(left, "identifier") && !ts_node_is_null(right)) assigned[std::string(text(left, src))].push_back(right);
    } else if (is(t, "binary_operator")) {
      operators.push_back(t);
    } else if (is(t, "call")) {
      calls.push_back(t);
    }
  }

  std::string canonical(TSNode fn) const { return imports.canonical(text(fn, src)); }

  bool hasDevice(TSNode call) const {
    for (TSNode c : NamedChildren(field(call, "arguments")))
      if (is(c, "keyword_argument") && text(field(c, "name"), src) == "device") return true;
    return false;
  }

  TSNode firstPositional(TSNode call) const {
    for (TSNode c : NamedChildren(field(call, "arguments")))
      if (!is(c, "keyword_argument") && !is(c, "comment")) return c;
    return TSNode{};
  }

  // A name every assignment of which is a list display or comprehension.
  bool listName(std::string_view name) const {
    auto it = assigned.find(std::string(name));
    if (it == assigned.end()) return false;
    for (TSNode r : it->second)
      if (!is(r, "list") && !is(r, "list_comprehension")) return false;
    return true;
  }

  // A torch factory building a CPU tensor of one or more dimensions right here.
  bool hostFactory(TSNode n) const {
    if (!is(n, "call") || hasDevice(n)) return false;
    std::string fn = canonical(field(n, "function"));
    TSNode first = firstPositional(n);
    if (fn == "torch.tensor" || fn == "torch.as_tensor" || fn == "torch.LongTensor" || fn == "torch.IntTensor") {
      if (is(first, "list")) return ts_node_named_child_count(first) > 0;
      return is(first, "list_comprehension") || (is(first, "identifier") && listName(text(first, src)));
    }
    if (fn == "torch.arange") return !ts_node_is_null(first);
    if (fn == "torch.zeros" || fn == "torch.ones" || fn == "torch.full" || fn == "torch.empty") {
      if (is(first, "tuple") || is(first, "list")) return ts_node_named_child_count(first) > 0;
      return is(first, "integer") || is(first, "identifier");
    }
    return false;
  }

  // The names whose storage `e` is made from by slicing and arithmetic; false when `e` is
  // anything else (a call, an attribute: its device is its own).
  bool roots(TSNode e, std::vector<std::string>& out) const {
    if (is(e, "identifier")) {
      out.emplace_back(text(e, src));
      return true;
    }
    if (is(e, "integer") || is(e, "float")) return true;
    if (is(e, "subscript")) return roots(field(e, "value"), out);
    if (is(e, "parenthesized_expression") || is(e, "unary_operator")) return roots(ts_node_named_child(e, 0), out);
    if (is(e, "binary_operator")) return roots(field(e, "left"), out) && roots(field(e, "right"), out);
    return false;
  }
};

}  // namespace

std::unordered_set<std::string> hostProvenNames(TSNode body, std::string_view src, const Imports& imports) {
  std::unordered_set<std::string> host;
  // Cheap rejection: no torch factory written out in the text at all.
  std::string_view t = text(body, src);
  bool combined = false;  // a torch call right after an operator or opening a list
  for (std::string_view op : {"+ torch.", "- torch.", "* torch.", "/ torch.", "[torch."})
    combined = combined || t.find(op) != std::string_view::npos;
  if (!combined) return host;
  bool factory = false;
  for (size_t at = t.find("torch."); at != std::string_view::npos && !factory; at = t.find("torch.", at + 6)) {
    std::string_view rest = t.substr(at + 6, 12);
    for (std::string_view f : {"tensor(", "as_tensor(", "arange(", "zeros(", "ones(", "full(", "empty(", "LongTensor(",
                               "IntTensor("})
      factory = factory || rest.starts_with(f);
  }
  if (!factory) return host;
  Scan s{src, imports, {}, {}, {}};
  s.walk(body);
  for (TSNode op : s.operators) {
    TSNode l = field(op, "left"), r = field(op, "right");
    if (s.hostFactory(r) && is(l, "identifier")) host.emplace(text(l, src));
    if (s.hostFactory(l) && is(r, "identifier")) host.emplace(text(r, src));
  }
  for (TSNode c : s.calls) {
    std::string fn = s.canonical(field(c, "function"));
    if (fn != "torch.cat" && fn != "torch.stack" && fn != "torch.concat") continue;
    TSNode parts = s.firstPositional(c);
    if (!is(parts, "list") && !is(parts, "tuple")) continue;
    bool factory = false;
    for (TSNode p : NamedChildren(parts)) factory = factory || s.hostFactory(p);
    if (!factory) continue;
    for (TSNode p : NamedChildren(parts))
      if (is(p, "identifier")) host.emplace(text(p, src));
  }
  // Back through slicing and arithmetic: `seqlens = cu_seqlens[1:] - cu_seqlens[:-1]`.
  for (bool grew = !host.empty(); grew;) {
    grew = false;
    for (const auto& [name, rhs] : s.assigned) {
      if (!host.count(name) || rhs.size() != 1) continue;  // one binding: what the use sees
      std::vector<std::string> from;
      if (!s.roots(rhs[0], from)) continue;
      for (auto& f : from) grew = host.insert(f).second || grew;
    }
  }
  // Only names the body never rebinds (parameters as passed in): a rebound name's proof is
  // about one of its values.
  for (auto it = host.begin(); it != host.end();) it = s.assigned.count(*it) ? host.erase(it) : std::next(it);
  return host;
}

}  // namespace sl::py
