// Baseline files: the findings a project has accepted, so a gate fails only on new ones.
// Entries are identified by the same fingerprint as SARIF's partialFingerprints
// (output/Fingerprint.h), so the baseline survives unrelated line shifts. Version 2 (written
// now): paths relative to the repository holding the baseline ("root": "repository"; else to
// the baseline's directory, "../" allowed), '/'-separated: it matches in any clone, at any
// path, written or read from any working directory. Version 1 (paths relative to the
// baseline's directory, absolute outside it) is still read; its absolute entries are matched
// in another clone by the part of their path below the repository.
#pragma once
#include <string>
#include <vector>

#include "core/Finding.h"

namespace sl {

// Writes `findings` (sorted) to `file`; false with `error` set when it cannot be written.
bool writeBaseline(const std::string& file, const std::vector<Finding>& findings, std::string& error);

struct BaselineResult {
  std::vector<Finding> fresh;  // findings not in the baseline
  size_t known = 0;            // findings the baseline accepts
  size_t stale = 0;            // baseline entries no longer found (fixed or edited)
};

// Splits `findings` (sorted) by `file`; false with `error` set when it cannot be read.
bool applyBaseline(const std::string& file, std::vector<Finding> findings, BaselineResult& out,
                   std::string& error);

}  // namespace sl
