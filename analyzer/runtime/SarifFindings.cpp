// `streamlint report --static FILE.sarif`: static findings made elsewhere (C++ needs Clang, which a
// GPU machine may lack) read back from SARIF 2.1.0.
#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <utility>
#include <vector>

#include "runtime/Pairing.h"

namespace sl::runtime {

namespace {

using nlohmann::json;

// A SARIF artifact location as a path: relative URIs resolve against their uriBaseId's root.
std::string pathOf(const json& artifact, const json& bases) {
  std::string uri = artifact.value("uri", "");
  auto stripScheme = [](std::string u) { return u.rfind("file://", 0) == 0 ? u.substr(7) : u; };
  if (uri.rfind("file://", 0) == 0) return stripScheme(uri);
  std::string base = artifact.value("uriBaseId", "");
  if (!base.empty() && bases.is_object() && bases.contains(base))
    return stripScheme(bases[base].value("uri", "")) + uri;
  return uri;
}

bool readLocation(const json& l, const json& bases, std::string& path, Loc& loc) {
  if (!l.is_object() || !l.contains("physicalLocation")) return false;
  const json& p = l["physicalLocation"];
  if (!p.contains("artifactLocation")) return false;
  path = pathOf(p["artifactLocation"], bases);
  if (p.contains("region")) {
    loc.line = p["region"].value("startLine", 0u);
    loc.col = p["region"].value("startColumn", 0u);
  }
  return !path.empty();
}

// Deeper than any SARIF log needs (streamlint's own go 8 levels deep). Parsing and destroying a
// document are iterative in nlohmann::json, copying one is recursive: a property nested a million
// levels deep overflowed the stack when the finding took it.
constexpr size_t kMaxSarifDepth = 512;

// Whether `doc` nests deeper than kMaxSarifDepth, with an explicit stack (no recursion).
bool nestedTooDeep(const json& doc) {
  std::vector<std::pair<const json*, size_t>> todo{{&doc, 1}};
  while (!todo.empty()) {
    auto [j, depth] = todo.back();
    todo.pop_back();
    if (!j->is_structured()) continue;
    if (depth > kMaxSarifDepth) return true;
    for (const auto& child : *j) todo.emplace_back(&child, depth + 1);
  }
  return false;
}

Severity severityOf(const std::string& level) {
  return level == "error" ? Severity::Error : level == "note" ? Severity::Note : Severity::Warning;
}

}  // namespace

bool readSarifFindings(const std::string& path, std::vector<Finding>& out, std::string& error) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) { error = path + ": no such file"; return false; }
  if (!S_ISREG(st.st_mode)) { error = path + ": not a file (expected a SARIF log)"; return false; }
  std::ifstream in(path);
  if (!in) { error = path + ": cannot open"; return false; }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("runs") || !doc["runs"].is_array()) {
    error = path + ": not a SARIF log (expected a JSON object with \"runs\")";
    return false;
  }
  if (nestedTooDeep(doc)) {
    error = path + ": nested more than " + std::to_string(kMaxSarifDepth) + " levels deep (not a SARIF log)";
    return false;
  }
  try {
    for (const auto& run : doc["runs"]) {
      json bases = run.value("originalUriBaseIds", json::object());
      for (const auto& r : run.value("results", json::array())) {
        Finding f;
        f.ruleId = r.value("ruleId", "");
        f.severity = severityOf(r.value("level", "warning"));
        f.message = r.contains("message") ? r["message"].value("text", "") : "";
        auto locs = r.value("locations", json::array());
        if (f.ruleId.empty() || locs.empty() || !readLocation(locs[0], bases, f.path, f.loc)) continue;
        for (const auto& rel : r.value("relatedLocations", json::array())) {
          RelatedLocation n;
          if (!readLocation(rel, bases, n.path, n.loc)) continue;
          n.message = rel.contains("message") ? rel["message"].value("text", "") : "";
          f.notes.push_back(std::move(n));
        }
        if (r.contains("properties") && r["properties"].is_object()) f.properties = r["properties"];
        out.push_back(std::move(f));
      }
    }
  } catch (const json::exception& e) {
    error = path + ": malformed SARIF: " + e.what();
    return false;
  }
  return true;
}

}  // namespace sl::runtime
