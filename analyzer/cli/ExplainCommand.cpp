#include <algorithm>
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

constexpr size_t kWidth = 100;

// `text` split at spaces into lines of at most `width` characters (a longer word stands alone).
std::vector<std::string> wrapWords(const std::string& text, size_t width) {
  std::vector<std::string> lines(1);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(start, end - start);
    if (!lines.back().empty() && lines.back().size() + 1 + word.size() > width) lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + word;
    start = end + 1;
  }
  return lines;
}

}  // namespace

// The doc is the test is the explanation: rule.md followed by the examples the tests run.
int explainMain(const Args& args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::fprintf(args.empty() ? stderr : stdout, "usage: streamlint explain SLnnn | RULE-NAME\n");
    return args.empty() ? 2 : 0;
  }
  // A rule by ID (any case) or by name, as ruff's `rule` takes either: `explain SL401` and
  // `explain backward-in-side-stream` print the same page.
  const RuleInfo* r = findRule(args[0]);
  for (const auto& rule : ruleCatalogue())
    if (!r && rule.name == args[0]) r = &rule;
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
  // One rule per entry, each line at most kWidth characters: the brief is wrapped at spaces
  // under its column (a terminal or a code review shows it whole, without scrolling sideways).
  size_t nameWidth = 0;
  for (const auto& r : ruleCatalogue()) nameWidth = std::max(nameWidth, r.name.size());
  const size_t indent = 6 + 1 + nameWidth + 1 + 7 + 1;
  for (const auto& r : ruleCatalogue()) {
    std::string line = r.id + std::string(r.id.size() < 6 ? 6 - r.id.size() : 0, ' ') + " " + r.name +
                       std::string(nameWidth - r.name.size(), ' ') + " " + severityName(r.severity);
    line.resize(indent, ' ');
    for (const std::string& part : wrapWords(r.brief, kWidth - indent)) {
      std::printf("%s%s\n", line.c_str(), part.c_str());
      line.assign(indent, ' ');
    }
  }
  return 0;
}

}  // namespace sl::cli
