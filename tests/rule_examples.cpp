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
#include <tuple>

#include "driver/Check.h"
#include "rules/Rule.h"

namespace fs = std::filesystem;

// (file, line, rule): the file as a canonical path, so that findings name it the same way.
using Expected = std::multiset<std::tuple<std::string, uint32_t, std::string>>;

static std::string canonical(const std::string& path) { return fs::weakly_canonical(path).string(); }

static void expectations(const std::string& path, const std::string& id, Expected& out) {
  std::ifstream in(path);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    size_t p = line.find("expect:");
    if (p == std::string::npos) continue;
    for (size_t q = line.find("SL", p); q != std::string::npos; q = line.find("SL", q + 2)) {
      std::string rule = line.substr(q, 5);
      if (rule == id) out.emplace(canonical(path), n, rule);
    }
  }
}

// A bad.*/good.* example is a file, or a directory checked as one project (calls between its
// modules): then the expectations of every file in it count.
static Expected expectationsOf(const std::string& example, const std::string& id) {
  Expected out;
  if (!fs::is_directory(example)) {
    expectations(example, id, out);
    return out;
  }
  for (const auto& e : fs::recursive_directory_iterator(example))
    if (e.is_regular_file()) expectations(e.path().string(), id, out);
  return out;
}

static bool lowConfidenceExample(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.find("examples: --min-confidence low") != std::string::npos) return true;
  return false;
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
    // A good.* example about a guess that must not be made at all (not only hidden by default)
    // says so on a line of its own: `examples: --min-confidence low`.
    if (!fs::is_directory(file) && lowConfidenceExample(file)) opts.minConfidence = 0;
    sl::CheckResult res = sl::runCheck(opts);
    Expected got, want = expectationsOf(file, id);
    for (const auto& f : res.findings) got.emplace(canonical(f.path), f.loc.line, f.ruleId);
    bool good = fs::path(file).filename().string().rfind("good.", 0) == 0;
    bool ok = got == want && res.diagnostics.empty() && !(good && !got.empty()) && (good || !want.empty());
    for (const auto& d : res.diagnostics)
      std::printf("%s: unexpected input diagnostic: %s\n", file.c_str(), d.message.c_str());
    for (const auto& f : res.findings) {
      auto key = std::make_tuple(canonical(f.path), f.loc.line, f.ruleId);
      if (got.count(key) > want.count(key))
        std::printf("%s:%u: unexpected %s: %s\n", f.path.c_str(), f.loc.line, f.ruleId.c_str(), f.message.c_str());
    }
    for (const auto& [path, line, rule] : want)
      if (got.count({path, line, rule}) < want.count({path, line, rule}))
        std::printf("%s:%u: expected %s, not reported\n", path.c_str(), line, rule.c_str());
    if (!good && want.empty()) std::printf("%s: a bad example must expect at least one finding\n", file.c_str());
    std::printf("%s %s (%zu findings)\n", ok ? "PASS" : "FAIL", file.c_str(), got.size());
    ok ? ++passed : ++failed;
  }
  if (files.empty()) std::printf("%s: no bad.*/good.* examples\n", dir.c_str());
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed || files.empty() ? 1 : 0;
}
