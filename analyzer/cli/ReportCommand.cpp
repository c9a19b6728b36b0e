// `streamlint report`: the runtime report (analyzer/runtime/ReportCommand.cpp) with this binary's
// static analysis plugged in, so `report DIR PATH...` pairs the run with PATH's findings.
#include <cstdio>

#include "cli/Commands.h"
#include "config/Config.h"
#include "driver/Check.h"
#include "driver/DeepStack.h"
#include "rules/Rule.h"
#include "runtime/ReportCommand.h"

namespace sl::cli {

int reportMain(const Args& args) {
  runtime::ReportHooks hooks;
  hooks.rules = &ruleCatalogue();
  // The config of the current directory (the project the run belongs to): its `docs-url`.
  if (auto config = ConfigResolver().forFile("./-")) hooks.docsUrl = config->docsUrl;
  hooks.analyse = [](const std::vector<std::string>& paths, std::vector<Finding>& out,
                     std::string& error) {
    CheckOptions opts;
    opts.paths = paths;
    // The run measured what this code costs: a benchmark's or a test's line is no less real.
    opts.checkDeliberateCode = true;
    CheckResult res = runCheck(opts);
    for (const auto& d : res.diagnostics) {
      std::string where = d.path + (d.loc.line ? ":" + std::to_string(d.loc.line) : "");
      std::fprintf(stderr, "%s: error: %s [%s]\n", where.c_str(), d.message.c_str(), d.ruleId.c_str());
    }
    if (res.files == 0 && !res.diagnostics.empty()) {
      error = "no source could be analysed";
      return false;
    }
    out.insert(out.end(), res.findings.begin(), res.findings.end());
    return true;
  };
  // On the deep stack `check` runs on (driver/DeepStack.h): the static analysis of PATHs recurses
  // as in `check`, and a recursion report missed is a clear error instead of a crash.
  std::string inputs = "streamlint report";
  for (const auto& a : args) inputs += " " + a;
  int rc = 2;
  runOnDeepStacks(1, [&] {
    setCurrentInput(&inputs);
    rc = runtime::reportMain(args, hooks);
    setCurrentInput(nullptr);
  });
  return rc;
}

}  // namespace sl::cli
