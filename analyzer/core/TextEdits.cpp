#include "core/TextEdits.h"

#include <algorithm>
#include <filesystem>

namespace sl {
namespace {

// Byte offset of a 1-based (line, column) in `text`; npos when it lies outside.
size_t offsetOf(const std::string& text, Loc loc) {
  if (loc.line == 0 || loc.col == 0) return std::string::npos;  // 1-based: 0 is no place (a damaged entry)
  size_t off = 0;
  for (uint32_t l = 1; l < loc.line; ++l) {
    off = text.find('\n', off);
    if (off == std::string::npos) return std::string::npos;
    ++off;
  }
  const size_t lineEnd = std::min(text.find('\n', off), text.size());
  // No further than just past the line's newline (a column past it is a damaged position).
  if (loc.col - 1 > lineEnd - off + 1 || off + loc.col - 1 > text.size()) return std::string::npos;
  return off + loc.col - 1;
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b < text.size()) {
    size_t e = text.find('\n', b);
    if (e == std::string::npos) e = text.size();
    out.push_back(text.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

bool before(const Edit& a, const Edit& b) { return a.start < b.start || (a.start == b.start && a.end < b.end); }

// Whether `e` can be applied to `text`: both ends inside it, in order.
bool applicable(const std::string& text, const Edit& e) {
  size_t b = offsetOf(text, e.start), en = offsetOf(text, e.end);
  return b != std::string::npos && en != std::string::npos && b <= en;
}

}  // namespace

std::string applyEdits(const std::string& text, std::vector<Edit> edits, size_t* skipped, const std::string* bytes) {
  const std::string& from = bytes && bytes->size() == text.size() ? *bytes : text;
  std::stable_sort(edits.begin(), edits.end(), before);
  std::string out;
  size_t pos = 0;
  for (const auto& e : edits) {
    size_t b = offsetOf(text, e.start), en = offsetOf(text, e.end);
    if (b == std::string::npos || en == std::string::npos || en < b || b < pos) {
      if (skipped) ++*skipped;  // overlaps an earlier edit, or out of range: left for a re-run
      continue;
    }
    out.append(from, pos, b - pos);
    out += e.text;
    pos = en;
  }
  out.append(from, pos, std::string::npos);
  return out;
}

// The lines [first, last] of `lines` after `edits` (all inside those lines).
std::vector<std::string> editedBlock(const std::vector<std::string>& lines, uint32_t first, uint32_t last,
                                     const std::vector<Edit>& edits) {
  std::string block;
  for (uint32_t l = first; l <= last; ++l) block += lines[l - 1] + "\n";
  std::vector<Edit> local = edits;
  for (auto& e : local) e.start.line -= first - 1, e.end.line -= first - 1;
  return splitLines(applyEdits(block, local));
}

std::string unifiedDiff(const std::string& path, const std::string& text, const std::vector<Edit>& editsIn) {
  // Edits that cannot apply (a damaged cache entry's line 0, a line past the end) show nothing,
  // as applyEdits drops them.
  std::vector<Edit> edits;
  for (const auto& e : editsIn)
    if (applicable(text, e)) edits.push_back(e);
  if (edits.empty()) return "";
  std::stable_sort(edits.begin(), edits.end(), before);
  const std::vector<std::string> lines = splitLines(text);
  const uint32_t n = uint32_t(lines.size());
  // Changes: edits on the same or overlapping lines, each replacing old lines [first, last].
  struct Change { uint32_t first, last; std::vector<std::string> now; };
  std::vector<Change> changes;
  for (size_t i = 0; i < edits.size();) {
    uint32_t first = edits[i].start.line, last = std::max(first, edits[i].end.line);
    size_t j = i + 1;
    while (j < edits.size() && edits[j].start.line <= last) last = std::max(last, edits[j].end.line), ++j;
    last = std::min(last, n);
    Change c{first, last, editedBlock(lines, first, last, {edits.begin() + long(i), edits.begin() + long(j)})};
    // Lines the edits left as they were are context, not a removal and an addition: an
    // inserted line shows as `+` alone.
    while (c.last >= c.first && !c.now.empty() && c.now.back() == lines[c.last - 1]) c.now.pop_back(), --c.last;
    while (c.first <= c.last && !c.now.empty() && c.now.front() == lines[c.first - 1]) c.now.erase(c.now.begin()), ++c.first;
    changes.push_back(std::move(c));
    i = j;
  }
  const std::string shown = std::filesystem::path(path).lexically_normal().generic_string();  // "./x.py" -> "x.py"
  std::string out = "--- a/" + shown + "\n+++ b/" + shown + "\n";
  long delta = 0;  // new line number minus old, before the current hunk
  for (size_t i = 0; i < changes.size();) {
    // A hunk: changes whose 3-line contexts touch.
    size_t j = i + 1;
    while (j < changes.size() && changes[j].first <= changes[j - 1].last + 7) ++j;
    const uint32_t ctxFirst = changes[i].first > 3 ? changes[i].first - 3 : 1;
    const uint32_t ctxLast = std::min(n, changes[j - 1].last + 3);
    std::string body;
    uint32_t oldCount = 0, newCount = 0;
    uint32_t l = ctxFirst;
    for (size_t k = i; k < j; ++k) {
      for (; l < changes[k].first; ++l, ++oldCount, ++newCount) body += " " + lines[l - 1] + "\n";
      for (; l <= changes[k].last; ++l, ++oldCount) body += "-" + lines[l - 1] + "\n";
      for (const auto& x : changes[k].now) body += "+" + x + "\n", ++newCount;
    }
    for (; l <= ctxLast; ++l, ++oldCount, ++newCount) body += " " + lines[l - 1] + "\n";
    out += "@@ -" + std::to_string(ctxFirst) + "," + std::to_string(oldCount) + " +" +
           std::to_string(long(ctxFirst) + delta) + "," + std::to_string(newCount) + " @@\n" + body;
    delta += long(newCount) - long(oldCount);
    i = j;
  }
  return out;
}

}  // namespace sl
