// `--fix` planning and writing (driver/FixApply.h) on any file and any edits: the file read back
// and checked against the analysed text, its encoding, line endings and BOM kept, edits outside
// the text dropped. Property: when no edit applies, the bytes written are the file's own.
// Input: byte 0 = number of edits (mod 8), then 5 bytes per edit (start line, start column,
// end line, end column, which replacement text), then the file's bytes.
#include <cstdlib>

#include "FuzzInput.h"
#include "core/SourceFile.h"
#include "core/TextEdits.h"
#include "driver/FixApply.h"

namespace {
const char* kTexts[] = {"", "\n", "torch.cuda.synchronize()\n", ".current_stream(", "\xe2\x82\xac", "\xc3\xa9",
                        "\r\n", "x"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sl::fuzz::quiet();
  if (size < 1) return 0;
  const size_t n = data[0] % 8;
  if (size < 1 + 5 * n) return 0;
  sl::Finding f{"SL103", sl::Severity::Warning, "", {1, 1}, "msg", {}, {}};
  sl::Fix fix{"fix", {}};
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* e = data + 1 + 5 * i;
    fix.edits.push_back({{e[0], e[1]}, {e[2], e[3]}, kTexts[e[4] % 8]});
  }
  f.fixes.push_back(fix);
  const size_t head = 1 + 5 * n;
  f.path = sl::fuzz::inputFile(data + head, size - head, "fixed.py");
  std::string err;
  auto file = sl::SourceFile::load(f.path, err);
  if (!file) return 0;  // the check would have reported the file, not fixed it
  const std::string dir = f.path.substr(0, f.path.rfind('/'));
  sl::FixRun run = sl::planFixes({f, f}, {{f.path, sl::textDigest(file->text())}}, {dir});
  if (run.files.empty()) return 0;  // refused (an encoding that does not round-trip)
  const sl::FileFixes& ff = run.files.begin()->second;
  (void)sl::unifiedDiff(f.path, ff.before, ff.edits);
  std::string bytes;
  size_t skipped = 0;
  if (!sl::fixedBytes(ff, bytes, skipped, err)) return 0;
  if (skipped == ff.edits.size() && bytes != std::string(reinterpret_cast<const char*>(data + head), size - head))
    std::abort();  // nothing applied, yet the file would change
  return 0;
}
