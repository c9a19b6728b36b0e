#include "output/Output.h"

#include "output/SourceCache.h"

namespace sl {

bool parseFormat(const std::string& s, Format& out) {
  if (s == "text") out = Format::Text;
  else if (s == "json") out = Format::Json;
  else if (s == "sarif") out = Format::Sarif;
  else return false;
  return true;
}

void writeJson(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions&) {
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
    arr.push_back(std::move(j));
  }
  os << nlohmann::json{{"version", 1}, {"findings", arr}}.dump(2) << "\n";
}

void writeFindings(std::ostream& os, const std::vector<Finding>& findings,
                   const OutputOptions& o) {
  switch (o.format) {
    case Format::Text: writeText(os, findings, o); break;
    case Format::Json: writeJson(os, findings, o); break;
    case Format::Sarif: writeSarif(os, findings, o); break;
  }
}

}  // namespace sl
