// A change-and-config-keyed cache of whole `check` results, like ruff's cache: a re-run on an
// unchanged tree costs a walk and a stat of every input instead of an analysis.
//
// The key covers everything a result depends on: this binary (its size, inode and mtime), the
// options that change findings, the working directory (paths are reported relative to it), every
// input's path and identity — size, inode, modification and change times, as git's index keeps
// them (any write moves the change time, which no tool can set back), so inputs are not read twice
// on a miss — and each directory above an input: its `.streamlint.toml` and
// `pyproject.toml` (content or absence) and whether it holds `.git` (deliberate-code roots).
// Python analysis is project-wide, so one key covers the whole run: any changed file means a
// full analysis. Runs with C/C++ inputs are not cached (their headers are not tracked), nor are
// --dump-model runs. Entries are JSON files under DIR/results/, the newest 16 kept.
#pragma once
#include <optional>
#include <string>

#include "driver/Check.h"

namespace sl {

class ResultCache {
 public:
  // dir: --cache-dir, else $STREAMLINT_CACHE_DIR, else .streamlint_cache in the current directory.
  explicit ResultCache(std::string dir);
  static std::string defaultDir();

  // The key of this run, or "" when the run cannot be cached.
  static std::string keyFor(const CheckOptions& opts);
  std::optional<CheckResult> load(const std::string& key) const;
  // Best effort: a cache that cannot be written only costs the next run its speed.
  void store(const std::string& key, const CheckResult& res) const;

 private:
  std::string dir_;
};

}  // namespace sl
