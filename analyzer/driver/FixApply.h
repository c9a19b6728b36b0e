// `--fix`: the fixes of a check's findings, gathered per file and turned into the file's new
// bytes. Only what was analysed is edited: each file is read again and its text compared (by
// digest) with the text the fixes were computed from, so an edit made meanwhile is never
// overwritten at stale offsets. The file keeps what the analysis does not see: its declared
// encoding (PEP 263), its line endings (inserted lines get the file's own) and its BOM.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/Finding.h"

namespace sl {

// A digest of a text that fixes were computed from (stable across runs: the cache keeps them).
std::string textDigest(std::string_view text);

struct FileFixes {
  std::string before;       // the file's text as analysed: what the edits' positions refer to
  std::vector<Edit> edits;  // every fix's edits, in order, each once
  std::string stored;       // `before` as the file holds it (lone CRs kept), still UTF-8
  std::string encoding;     // the declared encoding to write back in ("" = UTF-8)
  std::string eol = "\n";   // the file's line ending, for inserted lines
};
struct FixRun {
  std::map<std::string, FileFixes> files;
  size_t fixes = 0;                  // findings with a fix, in `files`
  std::vector<std::string> refused;  // "PATH: why it is left alone"
};

// Gathers the fixes of `findings` per file. `analysed`: each fixable file's textDigest when it
// was analysed (CheckResult::fixBasis); `inputs`: the check's paths, the tree a fix may write
// in (a file reached through a symlink that leads out of it is refused).
FixRun planFixes(const std::vector<Finding>& findings, const std::map<std::string, std::string>& analysed,
                 const std::vector<std::string>& inputs);

// The bytes to write for `ff`; false with `error` set when the result cannot be stored as the
// file was (a character its declared encoding lacks). `skipped` counts edits left out.
bool fixedBytes(const FileFixes& ff, std::string& bytes, size_t& skipped, std::string& error);

}  // namespace sl
