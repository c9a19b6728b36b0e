// `streamlint report` on an arbitrary .slog: the chunk reader, the timeline, the measured rules,
// the race check and every output format's writer (JSON and SARIF re-encode recorded strings).
#include "FuzzInput.h"
#include "runtime/ReportCommand.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sl::fuzz::quiet();
  std::string log = sl::fuzz::inputFile(data, size, "input.slog");
  sl::runtime::ReportHooks hooks;  // no PATH is given: no static analysis is needed
  for (const char* format : {"text", "sarif"})
    (void)sl::runtime::reportMain({log, "--format", format, "--min-blocking-us", "0"}, hooks);
  return 0;
}
