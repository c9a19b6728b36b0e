#include "driver/FixApply.h"

#include <cstdio>
#include <filesystem>

#include "core/Encoding.h"
#include "core/SourceFile.h"
#include "core/TextEdits.h"

namespace sl {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// The first line ending of `text` ("\r\n", "\r" or "\n"); "\n" when it has none.
std::string lineEnding(const std::string& text) {
  size_t i = text.find_first_of("\r\n");
  if (i == std::string::npos || text[i] == '\n') return "\n";
  return i + 1 < text.size() && text[i + 1] == '\n' ? "\r\n" : "\r";
}

// The directories a fix may write under: each input directory, and the directory holding each
// input file as named (not where a symlinked file leads).
std::vector<std::string> treeRoots(const std::vector<std::string>& inputs) {
  std::vector<std::string> roots;
  for (const auto& p : inputs) {
    std::error_code ec;
    fs::path abs = fs::absolute(p.empty() ? "." : p, ec);
    fs::path dir = fs::is_directory(abs, ec) ? abs : abs.parent_path();
    roots.push_back(fs::weakly_canonical(dir, ec).string());
  }
  if (roots.empty()) roots.push_back(fs::current_path().string());
  return roots;
}

bool insideTree(const std::string& path, const std::vector<std::string>& roots) {
  std::error_code ec;
  const std::string real = fs::canonical(path, ec).string();
  if (ec) return false;
  for (const auto& r : roots)
    if (real.size() > r.size() && real.compare(0, r.size(), r) == 0 && (r == "/" || real[r.size()] == '/')) return true;
  return false;
}

// Reads `path` again and fills `ff` when its text is still the one analysed; else the reason.
std::string reread(const std::string& path, const std::string& digest, FileFixes& ff) {
  std::string error;
  auto bytes = readSourceBytes(path, error);
  if (!bytes) return error;
  const std::string raw = *bytes;
  auto decoded = decodeSource(std::move(*bytes), error);
  if (!decoded) return error;
  SourceFile now(path, decoded->utf8);  // lone CRs made LFs, as the analysis saw it
  if (textDigest(now.text()) != digest) return "changed since it was analysed; not fixed (check it again)";
  if (!decoded->encoding.empty()) {
    // Written back in its encoding: only where that gives the file's own bytes back.
    auto again = fromUtf8(decoded->utf8, decoded->encoding);
    if (!again || *again != raw)
      return "its text does not encode back to the same bytes in '" + decoded->encoding + "'; not fixed";
  }
  ff.before = std::string(now.text());
  ff.eol = lineEnding(decoded->utf8);
  ff.stored = std::move(decoded->utf8);
  ff.encoding = decoded->encoding;
  return "";
}

bool sameEdit(const Edit& a, const Edit& b) { return a.start == b.start && a.end == b.end && a.text == b.text; }

}  // namespace

std::string textDigest(std::string_view text) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a, 64 bits
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char s[40];
  std::snprintf(s, sizeof s, "%016llx:%zu", static_cast<unsigned long long>(h), text.size());
  return s;
}

FixRun planFixes(const std::vector<Finding>& findings, const std::map<std::string, std::string>& analysed,
                 const std::vector<std::string>& inputs) {
  FixRun run;
  const std::vector<std::string> roots = treeRoots(inputs);
  std::map<std::string, std::string> refused;  // path -> why
  for (const auto& f : findings) {
    if (f.fixes.empty() || refused.count(f.path)) continue;
    auto it = run.files.find(f.path);
    if (it == run.files.end()) {
      FileFixes ff;
      auto basis = analysed.find(f.path);
      std::string why = basis == analysed.end() ? "no record of the text its fixes were computed from; not fixed"
                        : !insideTree(f.path, roots) ? "a symlink leading out of the checked tree; not fixed"
                                                     : reread(f.path, basis->second, ff);
      if (!why.empty()) {
        refused.emplace(f.path, why);
        continue;
      }
      it = run.files.emplace(f.path, std::move(ff)).first;
    }
    // The same edit twice (one finding reported twice) is made once.
    for (const auto& e : f.fixes.front().edits) {
      auto& edits = it->second.edits;
      bool known = false;
      for (const auto& x : edits) known = known || sameEdit(x, e);
      if (!known) edits.push_back(e);
    }
    ++run.fixes;
  }
  for (const auto& [path, why] : refused) run.refused.push_back(path + ": " + why);
  return run;
}

bool fixedBytes(const FileFixes& ff, std::string& bytes, size_t& skipped, std::string& error) {
  std::vector<Edit> edits = ff.edits;
  const bool bom = ff.before.starts_with(kBom);
  for (auto& e : edits) {
    // Inserted lines end as the file's lines do.
    if (ff.eol != "\n")
      for (size_t i = e.text.find('\n'); i != std::string::npos; i = e.text.find('\n', i + ff.eol.size()))
        e.text.replace(i, 1, ff.eol);
    // Nothing goes before a BOM: it marks the start of the file.
    if (bom && e.start == Loc{1, 1}) {
      e.start.col += uint32_t(kBom.size());
      if (e.end.line == 1 && e.end.col < e.start.col) e.end.col = e.start.col;
    }
  }
  std::string text = applyEdits(ff.before, std::move(edits), &skipped, &ff.stored);
  if (ff.encoding.empty()) {
    bytes = std::move(text);
    return true;
  }
  auto encoded = fromUtf8(text, ff.encoding);
  if (!encoded) {
    error = "the fixed text has characters its declared encoding '" + ff.encoding + "' cannot hold; not fixed";
    return false;
  }
  bytes = std::move(*encoded);
  return true;
}

}  // namespace sl
