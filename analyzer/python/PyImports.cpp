#include "python/PyImports.h"

namespace sl::py {
namespace {

// "torch.cuda.streams.Stream" and "torch.cuda.Stream" name the same class: fold the private
// submodules so the API table needs one key.
std::string normalize(std::string s) {
  for (std::string_view sub : {".streams.", ".random.", ".memory."}) {
    size_t p = s.find(sub);
    if (p != std::string::npos && s.compare(0, 11, "torch.cuda.") == 0) s.erase(p, sub.size() - 1);
  }
  return s;
}

}  // namespace

void Imports::add(TSNode stmt, std::string_view src) {
  if (is(stmt, "import_statement")) {
    for (TSNode c : NamedChildren(stmt)) {
      if (is(c, "dotted_name")) {
        // `import torch.cuda` binds `torch`.
        std::string full(text(c, src));
        std::string first = full.substr(0, full.find('.'));
        alias_[first] = first;
      } else if (is(c, "aliased_import")) {
        alias_[std::string(text(field(c, "alias"), src))] = std::string(text(field(c, "name"), src));
      }
    }
    return;
  }
  if (!is(stmt, "import_from_statement")) return;
  std::string mod(text(field(stmt, "module_name"), src));
  if (mod.empty()) return;
  // Relative imports (`from .utils import f` -> ".utils.f", `from . import m` -> ".m") name the
  // project's own modules: the project index resolves them against the importing file.
  std::string prefix = mod.back() == '.' ? mod : mod + ".";
  TSNode modNode = field(stmt, "module_name");
  for (TSNode c : NamedChildren(stmt)) {
    if (ts_node_eq(c, modNode)) continue;
    if (is(c, "dotted_name")) {
      std::string n(text(c, src));
      alias_[n] = prefix + n;
    } else if (is(c, "aliased_import")) {
      alias_[std::string(text(field(c, "alias"), src))] = prefix + std::string(text(field(c, "name"), src));
    }
  }
}

std::string Imports::canonical(std::string_view dotted) const {
  size_t dot = dotted.find('.');
  std::string first(dotted.substr(0, dot));
  auto it = alias_.find(first);
  if (it == alias_.end()) return "";
  std::string out = it->second;
  if (dot != std::string_view::npos) out += dotted.substr(dot);
  return normalize(std::move(out));
}

}  // namespace sl::py
