#include <cstdio>
#include <iostream>

#include "cli/Commands.h"
#include "rules/Rule.h"

namespace sl::cli {

namespace {

// The examples' `# expect: SLnnn` / `// expect: SLnnn` markers are for the tests, not the reader.
std::string withoutTestMarkers(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    for (const char* marker : {"# expect:", "// expect:"})
      if (size_t m = line.find(marker); m != std::string::npos) {
        line.erase(m);
        line.erase(line.find_last_not_of(" \t") + 1);
      }
    out += line;
    if (end == std::string::npos) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace

// The doc is the test is the explanation: rule.md followed by the examples the tests run.
int explainMain(const Args& args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::fprintf(args.empty() ? stderr : stdout, "usage: streamlint explain SLnnn\n");
    return args.empty() ? 2 : 0;
  }
  const RuleInfo* r = findRule(args[0]);
  if (!r) {
    std::fprintf(stderr, "streamlint explain: unknown rule '%s' (see `streamlint list-rules`)\n", args[0].c_str());
    return 2;
  }
  std::cout << r->doc;
  for (const auto& [name, text] : r->examples) {
    std::string lang = name.size() > 3 && name.substr(name.size() - 3) == ".py" ? "python" : "cpp";
      const std::string shown = withoutTestMarkers(text);
    std::cout << "\n## Example: " << name << "\n\n```" << lang << "\n" << shown;
    if (!shown.empty() && shown.back() != '\n') std::cout << "\n";
    std::cout << "```\n";
  }
  return 0;
}

int listRulesMain(const Args& args) {
  bool json = args.size() >= 2 && args[0] == "--format" && args[1] == "json";
  if (!args.empty() && !json) {
    std::fprintf(stderr, "usage: streamlint list-rules [--format json]\n");
    return 2;
  }
  if (json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& r : ruleCatalogue())
      arr.push_back({{"id", r.id}, {"name", r.name}, {"severity", severityName(r.severity)},
                     {"brief", r.brief}, {"summary", r.summary}, {"kind", r.runtime ? "runtime" : "static"}});
    std::cout << arr.dump(2) << "\n";
    return 0;
  }
  for (const auto& r : ruleCatalogue())
    std::printf("%-6s %-40s %-8s %s\n", r.id.c_str(), r.name.c_str(), severityName(r.severity),
                r.brief.c_str());
  return 0;
}

}  // namespace sl::cli
