// Runs one rule folder's examples: every finding of the rule in a bad.* file must be announced
// by an inline `expect: SLnnn` on its line, every announced one must be found, good.* files
// must be silent. Usage: rule_examples SLnnn rules/SLnnn-name
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "driver/Check.h"
#include "rules/Rule.h"

namespace fs = std::filesystem;

static std::multiset<std::pair<uint32_t, std::string>> expectations(const std::string& path,
                                                                   const std::string& id) {
  std::multiset<std::pair<uint32_t, std::string>> out;
  std::ifstream in(path);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    size_t p = line.find("expect:");
    if (p == std::string::npos) continue;
    for (size_t q = line.find("SL", p); q != std::string::npos; q = line.find("SL", q + 2)) {
      std::string rule = line.substr(q, 5);
      if (rule == id) out.emplace(n, rule);
    }
  }
  return out;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: rule_examples SLnnn DIR\n");
    return 2;
  }
  std::string id = argv[1], dir = argv[2];
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.rfind("bad.", 0) == 0 || name.rfind("good.", 0) == 0) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  int passed = 0, failed = 0;
  // rule.md's header says whether the rule is about correctness or performance: the driver
  // leaves performance notes in deliberate code (tests, benchmarks, __repr__) out by default.
  if (const sl::RuleInfo* info = sl::findRule(id); !info || (info->kind != "correctness" && info->kind != "performance")) {
    std::printf("%s: rule.md must say `kind: correctness` or `kind: performance` on its severity line\n", dir.c_str());
    ++failed;
  }
  for (const auto& file : files) {
    sl::CheckOptions opts;
    opts.paths = {file};
    opts.select = {id};
    opts.jobs = 1;
    sl::CheckResult res = sl::runCheck(opts);
    std::multiset<std::pair<uint32_t, std::string>> got, want = expectations(file, id);
    for (const auto& f : res.findings) got.emplace(f.loc.line, f.ruleId);
    bool good = fs::path(file).filename().string().rfind("good.", 0) == 0;
    bool ok = got == want && res.diagnostics.empty() && !(good && !got.empty()) && (good || !want.empty());
    for (const auto& d : res.diagnostics)
      std::printf("%s: unexpected input diagnostic: %s\n", file.c_str(), d.message.c_str());
    for (const auto& f : res.findings)
      if (got.count({f.loc.line, f.ruleId}) > want.count({f.loc.line, f.ruleId}))
        std::printf("%s:%u: unexpected %s: %s\n", file.c_str(), f.loc.line, f.ruleId.c_str(), f.message.c_str());
    for (const auto& [line, rule] : want)
      if (got.count({line, rule}) < want.count({line, rule})) std::printf("%s:%u: expected %s, not reported\n", file.c_str(), line, rule.c_str());
    if (!good && want.empty()) std::printf("%s: a bad example must expect at least one finding\n", file.c_str());
    std::printf("%s %s (%zu findings)\n", ok ? "PASS" : "FAIL", file.c_str(), got.size());
    ok ? ++passed : ++failed;
  }
  if (files.empty()) std::printf("%s: no bad.*/good.* examples\n", dir.c_str());
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed || files.empty() ? 1 : 0;
}
