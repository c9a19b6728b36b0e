// The Python checker on arbitrary bytes: the tree-sitter parse, the pre-parse guards, the
// lowering, the project index and every static rule, as `streamlint check FILE` runs them.
#include "FuzzInput.h"
#include "driver/Check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sl::fuzz::quiet();
  std::string file = sl::fuzz::inputFile(data, size, "input.py");
  // As users run it (the prefilter parses only what can matter), then everything: no
  // prefilter, low-confidence findings, deliberate code included.
  for (bool full : {false, true}) {
    sl::CheckOptions opts;
    opts.paths = {file};
    opts.jobs = 1;
    opts.prefilter = !full;
    opts.minConfidence = full ? 0 : -1;
    opts.checkDeliberateCode = full;
    (void)sl::runCheck(opts);
  }
  return 0;
}
