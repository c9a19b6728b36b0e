// Project configuration: `[tool.streamlint]` in pyproject.toml or the top level of
// .streamlint.toml, found upwards from each input file (the nearest wins), or one file forced
// with `--config`. Patterns are relative to the directory holding the config file.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/Glob.h"
#include "config/ProjectKnowledge.h"
#include "core/CanonicalPaths.h"
#include "core/Finding.h"

namespace sl {

struct Config {
  std::string file;  // the file it came from; "" for the built-in defaults
  std::string dir;   // absolute directory patterns are relative to
  std::optional<std::vector<std::string>> select;  // rule IDs or prefixes; unset = all
  std::vector<std::string> ignore;
  std::vector<std::pair<Glob, std::vector<std::string>>> perFileIgnores;
  std::map<std::string, Severity> severity;  // rule ID or prefix -> severity (longest wins)
  std::vector<Glob> exclude;  // `exclude` and `extend-exclude` (ruff's names; both add here)
  // `languages`: which frontends run ("python", "cpp"); unset = Python always, C/C++ only with
  // a compilation database or for files named as inputs (driver/Check.cpp cppWanted).
  std::optional<std::vector<std::string>> languages;
  ProjectKnowledge knowledge;
  // Performance notes in deliberate code (tests, benchmarks, examples, `__repr__`) are left
  // out unless this is set (driver/DeliberateCode.h).
  bool checkDeliberateCode = false;
  // `min-confidence`: findings less sure than this are not shown (0 low, 1 medium, 2 high).
  std::optional<int> minConfidence;
  // C/C++ files that cannot be parsed are skipped without failing the run (exit by findings
  // only; the summary of what was skipped is still printed). Same as --keep-going.
  bool keepGoing = false;
  // `docs-url`: where the rules' pages live, for SARIF helpUri ({id}, {name} replaced; "" = the
  // default site, rules/Rule.h kDefaultDocsUrl). Teams mirror the pages on an internal site.
  std::string docsUrl;

  // `path` relative to dir ('/'-separated; "../x" when outside).
  std::string relative(const std::string& path) const;
  bool excluded(const std::string& path) const;
  // Per-file-ignores that name `rule` for `path`.
  bool ignoredFor(const std::string& rule, const std::string& path) const;
  // The configured severity for `rule`, or `fallback`.
  Severity severityOf(const std::string& rule, Severity fallback) const;
};

// Loads one config file. pyproject.toml: its [tool.streamlint] table (an empty Config with
// `file` set when it has none); any other name: top-level keys. On a TOML error, an unknown
// key, a wrong type or an unknown rule, returns nullopt and sets `error` ("FILE: reason").
std::optional<Config> loadConfig(const std::string& file, std::string& error);

// Finds and caches the config for each input. Not thread-safe: resolve before going parallel.
class ConfigResolver {
 public:
  explicit ConfigResolver(std::string forced = {});  // forced: --config FILE
  // The config governing `path` (the defaults when none is found); nullptr when the config
  // that governs it is invalid (the error is in errors()). `canonical`, when given, receives
  // the path made absolute and canonical (what ProjectRoots::deliberateReason takes).
  std::shared_ptr<const Config> forFile(const std::string& path, std::string* canonical = nullptr);
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::shared_ptr<const Config> load(const std::string& file);
  std::shared_ptr<const Config> forDir(const std::string& dir);

  std::string forced_;
  std::shared_ptr<const Config> defaults_;
  std::map<std::string, std::shared_ptr<const Config>> byFile_;  // nullptr = invalid
  std::map<std::string, std::shared_ptr<const Config>> byDir_;
  std::vector<std::string> errors_;
  CanonicalPaths canonical_;
};

// "python" / "cpp" (also "c", "c++", "cuda"): the language's canonical name, or "" when it names none.
std::string languageName(const std::string& name);

// Whether `id` starts with any of `codes` (rule IDs or prefixes such as "SL3").
bool matchesAny(const std::string& id, const std::vector<std::string>& codes);

}  // namespace sl
