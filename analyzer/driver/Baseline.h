// Baseline files: the findings a project has accepted, so a gate fails only on new ones.
// Entries are identified by the same fingerprint as SARIF's partialFingerprints
// (output/Fingerprint.h), with paths relative to the baseline file's directory, so the
// baseline survives unrelated line shifts and runs from any working directory.
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
