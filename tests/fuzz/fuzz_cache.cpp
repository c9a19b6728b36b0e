// `check` answered from the cache: an entry read back (ResultCache::load) and what its findings
// feed, `--fix --diff-only`'s diff and the JSON and SARIF writers (a damaged entry's line-0
// edits and deep JSON once crashed them). A damaged entry must be a miss, never a crash.
#include <sys/stat.h>

#include <sstream>

#include "FuzzInput.h"
#include "core/TextEdits.h"
#include "driver/ResultCache.h"
#include "output/Output.h"
#include "rules/Rule.h"

namespace {
const char* kEntry = "results/0123456789abcdef0123456789abcdef.json";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sl::fuzz::quiet();
  static const std::string dir = [] {
    std::string probe = sl::fuzz::inputFile(nullptr, 0, "probe");
    std::string d = probe.substr(0, probe.rfind('/'));
    ::mkdir((d + "/results").c_str(), 0700);
    return d;
  }();
  sl::fuzz::inputFile(data, size, kEntry);
  auto res = sl::ResultCache(dir).load("0123456789abcdef0123456789abcdef");
  if (!res) return 0;
  // The text the fixes are shown against: any file's, here a short one.
  const std::string text = "import torch\nx.wait_stream(torch.cuda.default_stream())\n\ny = 1\n";
  std::ostringstream sink;
  for (const auto& f : res->findings)
    for (const auto& fx : f.fixes) {
      sink << sl::unifiedDiff(f.path, text, fx.edits);
      sink << sl::applyEdits(text, fx.edits);
    }
  sl::OutputOptions o;
  o.rules = &sl::ruleCatalogue();
  o.hidden = res->hiddenDeliberate;
  o.diagnostics = res->diagnostics;
  for (sl::Format f : {sl::Format::Json, sl::Format::Sarif}) {
    o.format = f;
    sl::writeFindings(sink, res->findings, o);
  }
  return 0;
}
