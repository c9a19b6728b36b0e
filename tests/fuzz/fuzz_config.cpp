// A .streamlint.toml: the TOML parser, every key's checks, glob patterns of per-file-ignores
// and exclude (compiled and matched once, as a check would).
#include "FuzzInput.h"
#include "config/Config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string error;
  auto config = sl::loadConfig(sl::fuzz::inputFile(data, size, ".streamlint.toml"), error);
  if (config) {
    std::string file = config->dir + "/pkg/module.py";
    (void)config->excluded(file);
    (void)config->ignoredFor("SL302", file);
    (void)config->severityOf("SL101", sl::Severity::Error);
  }
  return 0;
}
