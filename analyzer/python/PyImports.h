// Import aliases of one module, so `tc.stream`, `stream`, `cuda.stream` all resolve to the
// canonical "torch.cuda.stream" the API table knows.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>

#include "python/TsNode.h"

namespace sl::py {

class Imports {
 public:
  // Records the bindings an import_statement / import_from_statement creates.
  void add(TSNode stmt, std::string_view src);
  // Canonical dotted name for a dotted expression as written ("tc.stream" -> "torch.cuda.stream");
  // "" when the first name is not bound by an import (a local, a builtin).
  std::string canonical(std::string_view dotted) const;

 private:
  std::unordered_map<std::string, std::string> alias_;  // local name -> module path
};

}  // namespace sl::py
