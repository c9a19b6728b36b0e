// Fingerprints that name a finding across unrelated edits, shared by SARIF's
// partialFingerprints and the baseline file so both recognise the same findings.
#pragma once
#include <map>
#include <string>

#include "core/Finding.h"
#include "output/SourceCache.h"

namespace sl {

// A finding's identity is its rule, its path relative to a root, the trimmed text of its line
// and which occurrence of that triple it is, counted in the order findings are given (sorted
// findings: top to bottom). Lines moving up or down do not change it; editing the flagged line
// does. The hash is FNV-1a 64, spelled out so fingerprints stay equal across builds.
class Fingerprinter {
 public:
  // root: absolute directory. portable: paths outside the root are relative too ("../x.py"),
  // not absolute (baselines: the same in every clone).
  explicit Fingerprinter(std::string root, bool portable = false);
  // "<16 hex digits>:<occurrence>"; call once per finding, in output order.
  std::string next(const Finding& f);
  // The same with `path` standing for the finding's path (a version-1 baseline's absolute one).
  std::string nextAs(const Finding& f, const std::string& path);
  // `path` relative to the root when inside it ("pkg/a.py"), else its absolute path (or, when
  // portable, its relative path: "../x.py").
  std::string relative(const std::string& path) const;
  const std::string& root() const { return root_; }

 private:
  std::string root_;
  bool portable_ = false;
  SourceCache src_;
  std::map<std::string, int> seen_;  // identity -> occurrences so far
};

// The current directory, the default root (SARIF's %SRCROOT%).
std::string currentDir();

}  // namespace sl
