// GitHub Actions workflow commands: each finding becomes an annotation on the pull request's
// diff (https://docs.github.com/actions/reference/workflow-commands-for-github-actions).
#include <map>

#include "output/Fingerprint.h"
#include "output/Output.h"
#include "rules/Rule.h"

namespace sl {
namespace {

// Workflow-command escaping: '%', CR and LF in the message; also ':' and ',' in properties,
// which would otherwise end the property.
std::string escape(const std::string& s, bool property) {
  std::string out;
  for (char c : s) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else if (property && c == ':') out += "%3A";
    else if (property && c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

const char* command(Severity s) {
  return s == Severity::Error ? "error" : s == Severity::Warning ? "warning" : "notice";
}

}  // namespace

void writeGithub(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o) {
  std::map<std::string, std::string> names;
  if (o.rules)
    for (const auto& r : *o.rules) names[r.id] = r.name;
  // Annotations need paths relative to the workspace, which is where the job runs.
  Fingerprinter paths(currentDir());
  for (const auto& f : findings) {
    std::string title = f.ruleId;
    if (auto it = names.find(f.ruleId); it != names.end()) title += " " + it->second;
    std::string message = f.message + " [" + f.ruleId + "]";
    for (const auto& n : f.notes)
      message += "\n" + paths.relative(n.path) + ":" + std::to_string(n.loc.line) + ": " + n.message;
    os << "::" << command(f.severity) << " file=" << escape(paths.relative(f.path), true);
    if (f.loc.line) os << ",line=" << f.loc.line;
    if (f.loc.col) os << ",col=" << f.loc.col;
    os << ",title=" << escape(title, true) << "::" << escape(message, false) << "\n";
  }
}

}  // namespace sl
