// Clang-style diagnostics: what compiler users already read without thinking.
#include <algorithm>
#include <map>

#include "output/Output.h"
#include "output/SourceCache.h"

namespace sl {

std::string_view SourceCache::line(const std::string& path, uint32_t line) {
  auto it = files_.find(path);
  if (it == files_.end()) {
    std::string err;
    auto f = SourceFile::load(path, err);
    it = files_.emplace(path, f ? std::make_unique<SourceFile>(std::move(*f)) : nullptr).first;
  }
  return it->second ? it->second->line(line) : std::string_view();
}

namespace {

const char* kBold = "\033[1m";
const char* kReset = "\033[0m";

const char* severityColor(Severity s) {
  return s == Severity::Error ? "\033[1;31m" : s == Severity::Warning ? "\033[1;35m" : "\033[1;36m";
}

void writeOne(std::ostream& os, SourceCache& src, const OutputOptions& o, const std::string& path,
              Loc loc, Severity sev, const std::string& message, const std::string& suffix) {
  if (o.color) os << kBold;
  os << path;
  if (loc.line) os << ":" << loc.line << ":" << std::max<uint32_t>(loc.col, 1);
  os << ": ";
  if (o.color) os << severityColor(sev);
  os << severityName(sev) << ": ";
  if (o.color) os << kReset << kBold;
  os << message << suffix;
  if (o.color) os << kReset;
  os << "\n";
  if (!o.showSource || !loc.line) return;
  std::string_view text = src.line(path, loc.line);
  if (text.empty()) return;
  os << text << "\n";
  // The caret lines up under the column; tabs are copied so the caret stays aligned.
  std::string pad;
  for (uint32_t i = 1; i < loc.col && i - 1 < text.size(); ++i) pad += text[i - 1] == '\t' ? '\t' : ' ';
  os << pad << (o.color ? "\033[1;32m^\033[0m" : "^") << "\n";
}

}  // namespace

void writeText(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o) {
  SourceCache src;
  for (const auto& f : findings) {
    writeOne(os, src, o, f.path, f.loc, f.severity, f.message, " [" + f.ruleId + "]");
    for (const auto& n : f.notes) writeOne(os, src, o, n.path, n.loc, Severity::Note, n.message, "");
  }
  if (findings.empty() || !o.summary) return;
  os << findingsSummary(findings, o.hidden.size()) << "\n";
}

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string findingsSummary(const std::vector<Finding>& findings, size_t hidden) {
  std::map<std::string, int> perRule;
  for (const auto& f : findings) ++perRule[f.ruleId];
  std::string line = plural(findings.size(), "finding", "findings") + " (";
  bool first = true;
  for (const auto& [id, n] : perRule) line += (first ? "" : ", ") + id + ": " + std::to_string(n), first = false;
  line += ")";
  if (hidden) line += "; " + hiddenSummary(hidden);
  size_t fixable = std::count_if(findings.begin(), findings.end(), [](const Finding& f) { return !f.fixes.empty(); });
  if (fixable) line += "; " + std::to_string(fixable) + " fixable with --fix";
  return line;
}

void writeConcise(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o) {
  SourceCache src;
  OutputOptions one = o;
  one.showSource = false;
  for (const auto& f : findings) writeOne(os, src, one, f.path, f.loc, f.severity, f.message, " [" + f.ruleId + "]");
}

std::string hiddenSummary(size_t n) {
  return std::to_string(n) + (n == 1 ? " performance note" : " performance notes") +
         " in deliberate code hidden (tests, benchmarks, examples, set-up, logging, checks, `__repr__`; --check-deliberate-code shows them)";
}

}  // namespace sl
