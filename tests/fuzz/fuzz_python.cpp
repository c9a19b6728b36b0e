// The Python checker on arbitrary bytes: the tree-sitter parse, the pre-parse guards, the
// lowering, the project index and every static rule, as `streamlint check FILE` runs them; then
// a differential check: on a file that parses cleanly, the prefilter (which parses only what can
// matter to a rule) must give the same findings as parsing everything.
#include <cstdio>
#include <cstdlib>

#include "FuzzInput.h"
#include "driver/Check.h"
#include "driver/DeepStack.h"

namespace {

sl::CheckResult check(const std::string& file, bool prefilter, int minConfidence, bool deliberate) {
  sl::CheckOptions opts;
  opts.paths = {file};
  opts.jobs = 1;
  opts.prefilter = prefilter;
  opts.minConfidence = minConfidence;
  opts.checkDeliberateCode = deliberate;
  return sl::runCheck(opts);
}

std::string describe(const std::vector<sl::Finding>& findings) {
  std::string out;
  for (const auto& f : findings) out += f.ruleId + "@" + std::to_string(f.loc.line) + ":" + std::to_string(f.loc.col) + " ";
  return out;
}

void checkAll(const std::string& file) {
  // Everything: no prefilter, low-confidence findings, deliberate code included.
  (void)check(file, false, 0, true);
  // As users run it, against the same without the prefilter (its claim: same findings at the
  // default confidence; a syntax error may hide in code it skipped, so only clean files count).
  sl::CheckResult filtered = check(file, true, -1, false);
  sl::CheckResult full = check(file, false, -1, false);
  if (filtered.diagnostics.empty() && full.diagnostics.empty() &&
      describe(filtered.findings) != describe(full.findings)) {
    std::fprintf(stderr, "prefilter and full parse differ:\n  prefilter: %s\n  full:      %s\n",
                 describe(filtered.findings).c_str(), describe(full.findings).c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sl::fuzz::quiet();
  std::string file = sl::fuzz::inputFile(data, size, "input.py");
  // One deep-stack thread per input, in which every stage of the three checks runs inline: a
  // thread per stage (about 30 per input) cost most of the time under ASan.
  sl::runOnDeepStacks(1, [&] { checkAll(file); });
  return 0;
}
