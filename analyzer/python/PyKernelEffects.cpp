#include "python/PyKernelEffects.h"

#include <algorithm>
#include <map>

#include "python/TsNode.h"

namespace sl::py {
namespace {

class KernelReader {
 public:
  KernelReader(std::string_view src, KernelEffects& out) : src_(src), out_(out) {}

  void parameters(TSNode params) {
    for (TSNode p : NamedChildren(params))
      if (TSNode n = parameterName(p); is(n, "identifier")) out_.params.emplace_back(text(n, src_));
  }

  // Assignments first (a pointer may be built after the line that reads it, in a loop).
  void bindings(TSNode n) {
    if (is(n, "assignment") || is(n, "augmented_assignment")) {
      TSNode left = field(n, "left"), right = field(n, "right");
      if (is(left, "identifier") && !ts_node_is_null(right)) bound_[std::string(text(left, src_))].push_back(right);
    }
    for (TSNode c : NamedChildren(n)) bindings(c);
  }

  void accesses(TSNode n) {
    if (is(n, "call")) access(n);
    for (TSNode c : NamedChildren(n)) accesses(c);
  }

 private:
  // `tl.load(p, ...)`, `tl.store(p, v)`, `tl.atomic_add(p, v)`, `desc.load([...])`.
  void access(TSNode call) {
    TSNode fn = field(call, "function");
    if (!is(fn, "attribute")) return;
    const std::string_view method = text(field(fn, "attribute"), src_);
    TSNode recv = field(fn, "object");
    const std::string_view r = text(recv, src_);
    const bool language = r == "tl" || r.ends_with("language");
    const bool load = method == "load", store = method == "store", atomic = method.starts_with("atomic_");
    if (!load && !store && !atomic) return;
    int p = -1;
    if (language) {
      TSNode ptr = argument(call, 0, "pointer");
      p = base(ptr, 0);
    } else {
      p = base(recv, 0);  // a tensor descriptor or block pointer's own load/store
    }
    if (p < 0 || p >= 64) return;
    if (load || atomic) out_.loads |= uint64_t(1) << p;
    if (store || atomic) out_.stores |= uint64_t(1) << p;
  }

  TSNode argument(TSNode call, size_t index, const char* keyword) const {
    size_t i = 0;
    for (TSNode a : NamedChildren(field(call, "arguments"))) {
      if (is(a, "keyword_argument")) {
        if (text(field(a, "name"), src_) == keyword) return field(a, "value");
        continue;
      }
      if (i++ == index) return a;
    }
    return TSNode{};
  }

  // The parameter whose memory the pointer expression `e` addresses, or -1.
  int base(TSNode e, int depth) {
    if (ts_node_is_null(e) || depth > 12) return -1;
    if (is(e, "identifier")) {
      const std::string name(text(e, src_));
      auto p = std::find(out_.params.begin(), out_.params.end(), name);
      if (p != out_.params.end()) return int(p - out_.params.begin());
      auto b = bound_.find(name);
      if (b == bound_.end()) return -1;
      for (TSNode rhs : b->second)
        if (int i = base(rhs, depth + 1); i >= 0) return i;
      return -1;
    }
    if (is(e, "parenthesized_expression")) return base(ts_node_named_child(e, 0), depth + 1);
    if (is(e, "subscript")) return base(field(e, "value"), depth + 1);
    if (is(e, "conditional_expression")) {
      for (TSNode c : NamedChildren(e))
        if (int i = base(c, depth + 1); i >= 0) return i;
      return -1;
    }
    if (is(e, "binary_operator")) {
      // Only a sum moves a pointer; a product, shift or mask is an offset.
      const std::string_view op = text(field(e, "operator"), src_);
      if (op != "+" && op != "-") return -1;
      if (int i = base(field(e, "left"), depth + 1); i >= 0) return i;
      return op == "+" ? base(field(e, "right"), depth + 1) : -1;
    }
    if (is(e, "call")) {
      TSNode fn = field(e, "function");
      const std::string_view f = text(fn, src_);
      // Constructors of block pointers and descriptors, and hints, keep their base.
      if (f.ends_with("make_block_ptr") || f.ends_with("make_tensor_descriptor") || f.ends_with("advance") ||
          f.ends_with("multiple_of") || f.ends_with("max_contiguous"))
        return base(argument(e, 0, "base"), depth + 1);
      if (is(fn, "attribute")) {  // `ptr.to(tl.pointer_type(...))`
        const std::string_view m = text(field(fn, "attribute"), src_);
        if (m == "to" || m == "cast") return base(field(fn, "object"), depth + 1);
      }
    }
    return -1;
  }

  std::string_view src_;
  KernelEffects& out_;
  std::map<std::string, std::vector<TSNode>> bound_;
};

}  // namespace

KernelEffects kernelEffects(TSNode def, std::string_view src) {
  KernelEffects out;
  KernelReader r(src, out);
  r.parameters(field(def, "parameters"));
  TSNode body = field(def, "body");
  r.bindings(body);
  r.accesses(body);
  return out;
}

}  // namespace sl::py
