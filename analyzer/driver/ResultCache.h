// A change-and-config-keyed cache of whole `check` results, like ruff's cache: a re-run on an
// unchanged tree costs a walk and a stat of every input instead of an analysis.
//
// The key covers everything a result depends on: this binary (its size, inode and mtime), the
// options that change findings, the working directory (paths are reported relative to it), every
// input's path and identity — size, inode, modification and change times, as git's index keeps
// them (any write moves the change time, which no tool can set back), so inputs are not read twice
// on a miss — and each directory above an input: its `.streamlint.toml` and
// `pyproject.toml` (content or absence) and whether it holds `.git` (deliberate-code roots).
// Python analysis is project-wide, so one key covers the whole Python half of a run: any
// changed file means a full analysis. Only that half is cached: the C/C++ half of a run with
// C/C++ inputs is analysed every time (headers are not tracked; CheckOptions::runCpp), so one
// C/C++ file no longer costs the Python half its cache. Not cached: --dump-model runs, nor runs where an input changed in the current second or later (its
// identity cannot tell a same-size edit later in that second on a file system with 1-second
// timestamps: git's "racily clean" case; the next run caches it). Entries are JSON files under
// DIR/results/, the newest 16 kept. DIR is the cache's own: made by it and tagged with a
// CACHEDIR.TAG (and a .gitignore of `*`); an existing directory without the tag is never written
// in, and only files named as entries or their temporary files are ever removed.
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

  // The key of this run's Python half, or "" when it cannot be cached. `cppWork`: whether the
  // run has a C/C++ half (C/C++ files, or a compilation database).
  // `walk`, when given, receives the walk of the inputs (the run need not walk them again).
  static std::string keyFor(const CheckOptions& opts, bool* cppWork = nullptr, WalkResult* walk = nullptr);
  std::optional<CheckResult> load(const std::string& key) const;
  // Stores `res` under `key`. A directory that is not the cache's only costs the next run its
  // speed (`note` says why); a failed write (a full disk) is `failed` too: the run exits 2.
  struct Stored {
    std::string note;  // "" = stored, or nothing to store
    bool failed = false;
  };
  Stored store(const std::string& key, const CheckResult& res) const;

 private:
  std::string dir_;
};

}  // namespace sl
