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
  // Within each run of one path, place and rule (kept in the order found), drop a repeated
  // message.
  size_t out = 0;
  for (size_t i = 0, begin = 0; i < findings.size(); ++i) {
    // (Compared with the last kept finding: the ones before i may have been moved from.)
    if (out > 0 && std::tie(findings[i].path, findings[i].loc, findings[i].ruleId) !=
                       std::tie(findings[out - 1].path, findings[out - 1].loc, findings[out - 1].ruleId))
      begin = out;
    bool repeated = false;
    for (size_t k = begin; k < out && !repeated; ++k) repeated = findings[k].message == findings[i].message;
    if (repeated) continue;
    if (out != i) findings[out] = std::move(findings[i]);
    ++out;
  }
  findings.resize(out);
}

}  // namespace sl
