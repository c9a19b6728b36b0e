// `streamlint report` entry point. The runtime library links no analyzer frontend (it must run on
// GPU machines without LLVM or tree-sitter), so the CLI hands in the static analysis and the rule
// catalogue.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/Finding.h"

namespace sl {
struct RuleInfo;
}

namespace sl::runtime {

struct ReportHooks {
  // Analyses PATHs as `streamlint check` would; false with `error` on a usage/input error.
  std::function<bool(const std::vector<std::string>& paths, std::vector<Finding>& out,
                     std::string& error)> analyse;
  const std::vector<RuleInfo>* rules = nullptr;  // SARIF metadata and runtime rules' severities
  std::string docsUrl;  // the config's `docs-url` (SARIF helpUri), "" = the default site
};

int reportMain(const std::vector<std::string>& args, const ReportHooks& hooks);

}  // namespace sl::runtime
