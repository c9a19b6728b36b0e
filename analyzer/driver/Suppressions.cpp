#include "driver/Suppressions.h"

#include <cctype>

namespace sl {
namespace {

bool isCodeChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// A flake8-style code: letters then digits ("SL301", "E501").
bool looksLikeCode(std::string_view t) {
  size_t i = 0;
  while (i < t.size() && std::isalpha(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0 || i == t.size()) return false;
  for (; i < t.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(t[i]))) return false;
  return true;
}

// Parses the rule list that follows a marker (": A, B" for noqa, "(A,B)" for NOLINT). An absent
// list means every rule. A noqa list ends at the first word that is not a code, so
// `# noqa: SL301 reason given` lists SL301 only.
void parseList(std::string_view rest, Marker& m) {
  size_t i = 0;
  while (i < rest.size() && rest[i] == ' ') ++i;
  if (i >= rest.size() || (rest[i] != ':' && rest[i] != '(')) {
    m.all = true;
    return;
  }
  bool paren = rest[i] == '(';
  for (++i; i < rest.size() && !(paren && rest[i] == ')');) {
    while (i < rest.size() && (rest[i] == ' ' || rest[i] == ',')) ++i;
    size_t b = i;
    while (i < rest.size() && isCodeChar(rest[i])) ++i;
    if (i == b) break;
    std::string_view code = rest.substr(b, i - b);
    if (!paren && !looksLikeCode(code)) break;
    m.rules.emplace_back(code);
  }
}

void collect(std::string_view line, size_t from, std::string_view tag, Marker::Kind kind,
             std::vector<Marker>& out) {
  for (size_t p = line.find(tag, from); p != std::string_view::npos; p = line.find(tag, p + 1)) {
    std::string_view rest = line.substr(p + tag.size());
    Marker m;
    m.kind = kind;
    // NOLINTBEGIN/END delimit a block (SuppressionLedger::indexSpans), not this line.
    if (kind == Marker::Kind::Nolint && (rest.rfind("BEGIN", 0) == 0 || rest.rfind("END", 0) == 0)) continue;
    if (kind == Marker::Kind::Nolint && rest.rfind("NEXTLINE", 0) == 0) {
      m.kind = Marker::Kind::NolintNextLine;
      rest.remove_prefix(8);
    }
    m.col = uint32_t(from + 1);
    parseList(rest, m);
    out.push_back(std::move(m));
  }
}

}  // namespace

bool Marker::names(std::string_view rule) const {
  if (all) return true;
  for (const auto& r : rules)
    if (r == rule) return true;
  return false;
}

std::vector<Marker> markersIn(std::string_view line) {
  std::vector<Marker> out;
  if (size_t hash = line.find('#'); hash != std::string_view::npos)
    collect(line, hash, "noqa", Marker::Kind::Noqa, out);
  if (size_t slashes = line.find("//"); slashes != std::string_view::npos)
    collect(line, slashes, "NOLINT", Marker::Kind::Nolint, out);
  return out;
}

bool suppressedBy(std::string_view line, std::string_view previous, std::string_view rule) {
  for (const auto& m : markersIn(line))
    if (m.kind != Marker::Kind::NolintNextLine && m.names(rule)) return true;
  for (const auto& m : markersIn(previous))
    if (m.kind == Marker::Kind::NolintNextLine && m.names(rule)) return true;
  return false;
}

// What follows `tag` when it sits in a comment ('#' or "//" before it); a null view otherwise.
static std::string_view afterTag(std::string_view line, std::string_view tag) {
  size_t p = line.find(tag);
  if (p == std::string_view::npos) return {};
  size_t hash = line.find('#'), slashes = line.find("//");
  bool inComment = (hash != std::string_view::npos && hash < p) || (slashes != std::string_view::npos && slashes < p);
  return inComment ? line.substr(p + tag.size()) : std::string_view();
}

void SuppressionLedger::indexSpans() {
  spansIndexed_ = true;
  const uint32_t lines = uint32_t(file_.lineCount());
  std::vector<Span> open;
  for (uint32_t line = 1; line <= lines; ++line) {
    std::string_view text = file_.line(line);
    if (std::string_view rest = afterTag(text, "streamlint: noqa-file"); rest.data()) {
      Span s{1, lines, {}};
      parseList(rest, s.marker);
      spans_.push_back(std::move(s));
    }
    if (std::string_view rest = afterTag(text, "NOLINTBEGIN"); rest.data()) {
      Span s{line, lines, {}};  // an unclosed block runs to the end of the file
      parseList(rest, s.marker);
      open.push_back(std::move(s));
    } else if (std::string_view end = afterTag(text, "NOLINTEND"); end.data() && !open.empty()) {
      // Closes the innermost block (clang-tidy pairs them the same way).
      open.back().last = line;
      spans_.push_back(std::move(open.back()));
      open.pop_back();
    }
  }
  for (auto& s : open) spans_.push_back(std::move(s));
}

bool SuppressionLedger::suppress(const Finding& f) {
  uint32_t line = f.loc.line;
  if (!line) return false;
  if (!spansIndexed_) indexSpans();
  for (const auto& s : spans_)
    if (line >= s.first && line <= s.last && s.marker.names(f.ruleId)) return true;
  bool hit = false;
  auto scan = [&](uint32_t at, bool nextLine) {
    auto markers = markersIn(file_.line(at));
    for (size_t i = 0; i < markers.size(); ++i) {
      const Marker& m = markers[i];
      if ((m.kind == Marker::Kind::NolintNextLine) != nextLine || !m.names(f.ruleId)) continue;
      hit = true;
      used_.emplace(at, i, f.ruleId);
    }
  };
  scan(line, false);
  if (line > 1) scan(line - 1, true);
  return hit;
}

void SuppressionLedger::reportUnused(const std::function<bool(const std::string&)>& active,
                                     std::vector<Finding>& out) const {
  for (uint32_t line = 1; line <= file_.lineCount(); ++line) {
    std::string_view text = file_.line(line);
    if (text.find("noqa") == std::string_view::npos && text.find("NOLINT") == std::string_view::npos) continue;
    auto markers = markersIn(text);
    for (size_t i = 0; i < markers.size(); ++i) {
      for (const auto& code : markers[i].rules) {
        if (code.rfind("SL", 0) != 0 || !active(code) || used_.count({line, i, code})) continue;
        const char* where = markers[i].kind == Marker::Kind::NolintNextLine ? "the next line" : "this line";
        out.push_back({"unused-suppression", Severity::Warning, file_.path(), {line, markers[i].col},
                       "suppression of " + code + " is unused: no " + code + " finding on " + where +
                           "; remove it so it cannot hide a future finding",
                       {}, {}});
      }
    }
  }
}

}  // namespace sl
