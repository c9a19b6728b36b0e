// Deliberate code as one table: every reason streamlint has to treat a performance note as the
// price the code chose to pay (a test compares on the host, a benchmark synchronizes to time, a
// script's entry point runs once, a logging helper runs only every N steps). Such notes (rules
// of `kind: performance`) are left out by default and counted; correctness rules stay on.
//
// The table (DeliberatePolicy.cpp, kPolicy) names each entry, says what it covers and why,
// and points at the test that decides it. Entries are tried in order; the first that matches
// gives the reason shown in `--statistics` and the finding's `deliberate` property. The tests
// themselves live where their facts are: paths (DeliberateCode.h), line spans and function
// roles the frontend found (model::Module), SL302's statement shapes (DeliberateShapes.h), and
// text-level block structure (SourceLines.h) for what the prefilter may not have lowered.
// `docs/deliberate-code.md` lists the same entries for users; a test keeps the two in step.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/Finding.h"
#include "driver/SourceLines.h"
#include "model/StreamModel.h"

namespace sl {

// What an entry is judged on.
struct DeliberateQuery {
  DeliberateQuery(const Finding& f, const model::Module& m, std::string_view text, const std::string& why)
      : finding(f), module(m), src(text), pathReason(why) {}
  const Finding& finding;
  const model::Module& module;
  std::string_view src;         // the module's text (Python; empty for C/C++)
  const std::string& pathReason;  // ProjectRoots::deliberateReason of the file, or ""
  // `src` as lines, split once for all the entries that read its block structure.
  const Lines& lines() const;

 private:
  mutable std::optional<Lines> lines_;
};

struct DeliberateEntry {
  const char* id;      // stable name (docs/deliberate-code.md)
  const char* covers;  // what code it matches
  const char* why;     // why a performance note there is deliberate
  std::string (*test)(const DeliberateQuery&);  // the reason shown, or "" when it does not match
};

// The table, in the order entries are tried.
const std::vector<DeliberateEntry>& deliberatePolicy();

// The reason of the first entry that matches `q`, or "" (the finding is shown).
std::string deliberatePolicyReason(const DeliberateQuery& q);

// Directories of one-off scripts (`scripts/`, `tools/`, `tasks/`): deliberate code except
// where it trains (a training loop, per-step code). `reason` is deliberatePathReason's.
bool oneOffScriptDirectory(std::string_view reason);

}  // namespace sl
