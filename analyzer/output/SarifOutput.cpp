// SARIF 2.1.0 for code-scanning services: relative URIs under %SRCROOT%, rule metadata with
// help from rule.md, and partialFingerprints that survive unrelated line shifts (Fingerprint.h:
// the same identity the baseline file uses).
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <map>
#include <set>

#include "output/Output.h"
#include "output/Fingerprint.h"
#include "rules/Rule.h"
#include "sl_version.h"

namespace sl {
// Declared with RuleInfo (rules/Rule.h); here because the SARIF writer (core) is its user.
std::string ruleDocsUrl(const RuleInfo& rule, const std::string& docsUrl) {
  std::string url = docsUrl.empty() ? kDefaultDocsUrl : docsUrl;
  bool placeholder = false;
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"{id}", rule.id}, {"{name}", rule.name}})
    for (size_t at; (at = url.find(key)) != std::string::npos;) {
      url.replace(at, key.size(), value);
      placeholder = true;
    }
  return placeholder ? url : url + rule.id;
}

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Path relative to the source root when inside it; absolute file URI otherwise.
json artifactLocation(const std::string& path, const std::string& root) {
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(path, ec), ec);
  fs::path rel = abs.lexically_relative(root);
  if (!rel.empty() && *rel.begin() != "..")
    return {{"uri", rel.generic_string()}, {"uriBaseId", "%SRCROOT%"}};
  return {{"uri", "file://" + abs.generic_string()}};
}

json location(const std::string& path, Loc loc, const std::string& root) {
  json region = json::object();
  if (loc.line) region["startLine"] = loc.line;
  if (loc.col) region["startColumn"] = loc.col;
  json phys = {{"artifactLocation", artifactLocation(path, root)}};
  if (!region.empty()) phys["region"] = region;
  return {{"physicalLocation", phys}};
}

json ruleDescriptor(const RuleInfo& r, const std::string& docsUrl) {
  return {{"id", r.id},
          {"name", r.name},
          {"shortDescription", {{"text", r.brief}}},
          {"fullDescription", {{"text", r.summary}}},
          {"help", {{"text", r.doc}, {"markdown", r.doc}}},
          {"helpUri", ruleDocsUrl(r, docsUrl)},
          {"defaultConfiguration", {{"level", severityName(r.severity)}}},
          {"properties", {{"tags", json::array({r.runtime ? "runtime" : "static", "cuda-streams"})}}}};
}

const char* level(Severity s) { return s == Severity::Note ? "note" : severityName(s); }

}  // namespace

void writeSarif(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o) {
  const std::string root = currentDir();
  Fingerprinter fingerprints(root);
  json rules = json::array();
  std::map<std::string, int> ruleIndex;
  if (o.rules)
    for (const auto& r : *o.rules) ruleIndex[r.id] = int(rules.size()), rules.push_back(ruleDescriptor(r, o.docsUrl));

  json results = json::array();
  for (const auto& f : findings) {
    json res = {{"ruleId", f.ruleId},
                {"level", level(f.severity)},
                {"message", {{"text", f.message}}},
                {"locations", json::array({location(f.path, f.loc, root)})}};
    if (auto it = ruleIndex.find(f.ruleId); it != ruleIndex.end()) res["ruleIndex"] = it->second;
    json related = json::array();
    int id = 0;
    for (const auto& n : f.notes) {
      json l = location(n.path, n.loc, root);
      l["id"] = id++;
      l["message"] = {{"text", n.message}};
      related.push_back(std::move(l));
    }
    if (!related.empty()) res["relatedLocations"] = std::move(related);
    res["partialFingerprints"] = {{"primaryLocationLineHash", fingerprints.next(f)}};
    if (!f.properties.empty()) res["properties"] = f.properties;
    if (!f.fixes.empty()) {
      json fixes = json::array();
      for (const auto& fx : f.fixes) {
        json replacements = json::array();
        for (const auto& e : fx.edits)
          replacements.push_back({{"deletedRegion", {{"startLine", e.start.line}, {"startColumn", e.start.col},
                                                     {"endLine", e.end.line}, {"endColumn", e.end.col}}},
                                  {"insertedContent", {{"text", e.text}}}});
        fixes.push_back({{"description", {{"text", fx.description}}},
                         {"artifactChanges", json::array({{{"artifactLocation", artifactLocation(f.path, root)},
                                                           {"replacements", replacements}}})}});
      }
      res["fixes"] = std::move(fixes);
    }
    results.push_back(std::move(res));
  }

  json notifications = json::array();
  for (const auto& e : o.inputErrors)
    notifications.push_back({{"level", "error"}, {"message", {{"text", e}}}});
  json invocation = {{"executionSuccessful", o.inputErrors.empty()}};
  if (!o.toolCommand.empty()) invocation["commandLine"] = o.toolCommand;
  if (!notifications.empty()) invocation["toolExecutionNotifications"] = notifications;

  json run = {
      {"tool", {{"driver", {{"name", "streamlint"},
                            {"version", SL_VERSION},
                            {"rules", rules}}}}},
      {"originalUriBaseIds", {{"%SRCROOT%", {{"uri", "file://" + root + "/"}}}}},
      {"invocations", json::array({invocation})},
      {"results", results}};
  if (!o.runProperties.is_null()) run["properties"] = o.runProperties;
  json doc = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({run})}};
  os << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";  // a non-UTF-8 file name must not abort
}

}  // namespace sl
