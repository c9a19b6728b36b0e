#include "output/Output.h"

#include <algorithm>
#include <iomanip>
#include <map>

#include "output/SourceCache.h"
#include "rules/Rule.h"

namespace sl {

bool parseFormat(const std::string& s, Format& out) {
  if (s == "text") out = Format::Text;
  else if (s == "concise") out = Format::Concise;
  else if (s == "json") out = Format::Json;
  else if (s == "sarif") out = Format::Sarif;
  else if (s == "github") out = Format::Github;
  else if (s == "lintrunner") out = Format::Lintrunner;
  else return false;
  return true;
}

std::string commandLine(const std::string& tool, const std::vector<std::string>& args) {
  std::string out = tool;
  for (const auto& a : args) {
    bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                   "0123456789-_./=:,@%+") == std::string::npos;
    out += ' ';
    if (plain) { out += a; continue; }
    out += '\'';
    for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

void writeJson(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& f : findings) {
    nlohmann::json j = {{"rule", f.ruleId},       {"severity", severityName(f.severity)},
                        {"path", f.path},         {"line", f.loc.line},
                        {"column", f.loc.col},    {"message", f.message}};
    nlohmann::json notes = nlohmann::json::array();
    for (const auto& n : f.notes)
      notes.push_back({{"path", n.path}, {"line", n.loc.line}, {"column", n.loc.col},
                       {"message", n.message}});
    j["notes"] = std::move(notes);
    if (!f.properties.empty()) j["properties"] = f.properties;
    if (!f.fixes.empty()) {
      nlohmann::json edits = nlohmann::json::array();
      for (const auto& e : f.fixes.front().edits)
        edits.push_back({{"line", e.start.line}, {"column", e.start.col}, {"endLine", e.end.line},
                         {"endColumn", e.end.col}, {"text", e.text}});
      j["fix"] = {{"description", f.fixes.front().description}, {"edits", edits}};
    }
    arr.push_back(std::move(j));
  }
  nlohmann::json doc = {{"version", 1}, {"findings", arr}};
  if (!o.runProperties.is_null()) doc["run"] = o.runProperties;
  // What --check-deliberate-code would add, so a dashboard can say what it does not show.
  if (!o.hidden.empty()) doc["hidden"] = {{"deliberate_code", o.hidden.size()}};
  // What SARIF keeps as notifications (damaged logs, dropped records, unreadable inputs): a
  // JSON consumer must not take a partial result for a whole one.
  if (!o.inputErrors.empty()) doc["errors"] = o.inputErrors;
  os << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

void writeFindings(std::ostream& os, const std::vector<Finding>& findings,
                   const OutputOptions& o) {
  switch (o.format) {
    case Format::Text: writeText(os, findings, o); break;
    case Format::Concise: writeConcise(os, findings, o); break;
    case Format::Json: writeJson(os, findings, o); break;
    case Format::Sarif: writeSarif(os, findings, o); break;
    case Format::Github: writeGithub(os, findings, o); break;
    case Format::Lintrunner: writeLintrunner(os, findings, o); break;
  }
}

void writeStatistics(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o) {
  std::map<std::string, size_t> counts, fixable;
  for (const auto& f : findings) ++counts[f.ruleId], fixable[f.ruleId] += !f.fixes.empty();
  std::vector<std::pair<std::string, size_t>> rows(counts.begin(), counts.end());
  std::stable_sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.second > b.second; });
  auto nameOf = [&](const std::string& id) -> std::string {
    if (o.rules)
      for (const auto& r : *o.rules)
        if (r.id == id) return r.name;
    return "";
  };
  if (o.format == Format::Json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& [id, n] : rows)
      arr.push_back({{"code", id}, {"name", nameOf(id)}, {"count", n}, {"fixable", fixable[id] > 0}});
    os << arr.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  // ruff's marker: [*] when --fix fixes (some of) the rule's findings, [ ] when it fixes none.
  for (const auto& [id, n] : rows)
    os << std::setw(6) << n << "  " << id << "  " << (fixable[id] ? "[*] " : "[ ] ") << nameOf(id) << "\n";
  if (o.hidden.empty()) return;
  // The hidden notes, per rule and reason: what --check-deliberate-code would add.
  std::map<std::pair<std::string, std::string>, size_t> hidden;
  for (const auto& f : o.hidden) ++hidden[{f.ruleId, f.properties.value("deliberate", std::string())}];
  os << hiddenSummary(o.hidden.size()) << ":\n";
  for (const auto& [key, n] : hidden)
    os << std::setw(6) << n << "  " << key.first << "  " << nameOf(key.first) << "  in " << key.second << "\n";
}

}  // namespace sl
