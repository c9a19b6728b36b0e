#include "core/Finding.h"

#include <algorithm>
#include <tuple>

namespace sl {

const char* severityName(Severity s) {
  switch (s) {
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "warning";
}

void sortFindings(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.path, a.loc, a.ruleId) < std::tie(b.path, b.loc, b.ruleId);
  });
}

}  // namespace sl
