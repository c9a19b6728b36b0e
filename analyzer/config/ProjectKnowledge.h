// What a project's configuration teaches the Python frontend about its own helpers: functions
// that synchronize or run backward (DualPipe's `run_backward`), and stream wrappers
// (DeepSpeed's `get_accelerator().current_stream()`). Header-only so the frontend needs no
// dependency on config loading.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sl {

struct ProjectKnowledge {
  std::vector<std::string> syncFunctions;      // each acts as torch.cuda.synchronize()
  std::vector<std::string> backwardFunctions;  // each acts as torch.autograd.backward()
  // (callee as written, torch API it stands for): ("get_accelerator().stream", "torch.cuda.stream")
  std::vector<std::pair<std::string, std::string>> streamWrappers;

  bool empty() const { return syncFunctions.empty() && backwardFunctions.empty() && streamWrappers.empty(); }

  // The torch API a call's callee text stands for, or "" when none. Whitespace is ignored; a
  // configured name matches the whole callee or its last dotted part(s), so `run_backward`
  // matches `run_backward(...)`, `utils.run_backward(...)` and `self.run_backward(...)`.
  std::string resolve(std::string_view callee) const {
    if (empty()) return {};
    std::string c;
    for (char ch : callee)
      if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' && ch != '\\') c += ch;
    auto matches = [&](const std::string& name) {
      if (c == name) return true;
      return c.size() > name.size() && c.compare(c.size() - name.size(), name.size(), name) == 0 &&
             c[c.size() - name.size() - 1] == '.';
    };
    for (const auto& [from, to] : streamWrappers)
      if (matches(from)) return to;
    for (const auto& n : syncFunctions)
      if (matches(n)) return "torch.cuda.synchronize";
    for (const auto& n : backwardFunctions)
      if (matches(n)) return "torch.autograd.backward";
    return {};
  }
};

}  // namespace sl
