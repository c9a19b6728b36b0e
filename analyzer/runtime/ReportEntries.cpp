#include "runtime/ReportEntries.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "runtime/Pairing.h"
#include "runtime/RuntimeRules.h"

namespace sl::runtime {

namespace {

// The measured rules that state, for a line, the very problem a static rule predicted there.
bool confirmsStatic(const std::string& rule) { return rule == "SL902" || rule == "SL903" || rule == "SL905"; }

bool sameLine(const Finding& a, const Finding& b) { return a.loc.line == b.loc.line && samePath(a.path, b.path); }

}  // namespace

void mergeConfirmed(std::vector<Finding>& statics, std::vector<Finding>& measured) {
  std::vector<bool> merged(measured.size(), false);
  for (auto& f : statics) {
    if (!f.properties.contains("runtime") || !f.properties["runtime"].contains("measuredBy")) continue;
    nlohmann::json& rt = f.properties["runtime"];
    if (rt.contains("confirmedBy")) continue;  // a race confirmed it already (SL904)
    for (size_t i = 0; i < measured.size(); ++i) {
      const Finding& m = measured[i];
      if (merged[i] || !confirmsStatic(m.ruleId) || !sameLine(f, m)) continue;
      merged[i] = true;
      rt["confirmedBy"] = {{"rule", m.ruleId}, {"path", m.path}, {"line", m.loc.line},
                           {"message", m.message}, {"properties", m.properties}};
      // Pairing's "(see SL901, SL903)" no longer points at a separate entry for the merged rule.
      for (const std::string& ref : {", " + m.ruleId + ")", m.ruleId + ", ", " (see " + m.ruleId + ")"})
        if (size_t at = f.message.rfind(ref); at != std::string::npos) {
          f.message.replace(at, ref.size(), ref[0] == ',' ? ")" : "");
          break;
        }
      f.message += "; confirmed at runtime (" + m.ruleId + "): " + m.message;
      f.severity = std::max(f.severity, m.severity);
      f.notes.insert(f.notes.end(), m.notes.begin(), m.notes.end());
      break;  // one measured finding per static one; a second static finding keeps "see SL903"
    }
  }
  size_t out = 0;
  for (size_t i = 0; i < measured.size(); ++i)
    if (!merged[i]) {
      if (out != i) measured[out] = std::move(measured[i]);  // never onto itself: a self-move empties it
      ++out;
    }
  measured.resize(out);
}

void foldSetUp(std::vector<Finding>& findings, bool fold) {
  std::vector<Finding> setUp, rest;
  for (auto& f : findings) {
    bool once = f.ruleId == "SL901" && f.properties.value("phase", std::string()) == "set-up";
    if (once) f.severity = Severity::Note;
    (once ? setUp : rest).push_back(std::move(f));
  }
  if (!fold || setUp.size() < 2) {
    rest.insert(rest.end(), std::make_move_iterator(setUp.begin()), std::make_move_iterator(setUp.end()));
    findings = std::move(rest);
    return;
  }
  // The user's own lines first, then by cost: the entry sits where the user can act.
  std::stable_sort(setUp.begin(), setUp.end(), [](const Finding& a, const Finding& b) {
    bool la = a.properties.value("insideLibrary", false), lb = b.properties.value("insideLibrary", false);
    if (la != lb) return !la;
    return a.properties.value("costMicros", 0.0) > b.properties.value("costMicros", 0.0);
  });
  double totalMicros = 0;
  uint64_t calls = 0;
  nlohmann::json sites = nlohmann::json::array();
  Finding note;
  note.ruleId = "SL901";
  note.severity = Severity::Note;
  note.path = setUp[0].path;
  note.loc = setUp[0].loc;
  std::string largest;
  for (size_t i = 0; i < setUp.size(); ++i) {
    const Finding& f = setUp[i];
    totalMicros += f.properties.value("blockedMicros", 0.0);
    calls += f.properties.value("calls", uint64_t(0));
    nlohmann::json site = f.properties;
    site["path"] = f.path, site["line"] = f.loc.line, site["message"] = f.message;
    sites.push_back(site);
    note.notes.push_back({f.path, f.loc, f.message});
    if (i < 3) {
      std::string where = f.path.empty() ? "?" : f.path.substr(f.path.find_last_of('/') + 1) +
                                                     (f.loc.line ? ":" + std::to_string(f.loc.line) : "");
      largest += (largest.empty() ? "" : ", ") + ("`" + f.properties.value("api", std::string("?")) + "` at " + where +
                                                  " " + humanTime(f.properties.value("blockedMicros", 0.0) * 1e3));
    }
  }
  note.message = "one-time set-up blocked the host for " + humanTime(totalMicros * 1e3) + " in " +
                 std::to_string(calls) + " calls at " + std::to_string(setUp.size()) +
                 " sites, each paid once rather than every step (" + largest +
                 (setUp.size() > 3 ? ", and " + std::to_string(setUp.size() - 3) + " more" : "") +
                 "; every site is a note below); ranked after the per-step costs";
  note.properties = {{"phase", "set-up"}, {"folded", setUp.size()}, {"calls", calls},
                     {"insideLibrary", setUp[0].properties.value("insideLibrary", false)},
                     {"blockedMicros", std::round(totalMicros * 10) / 10},
                     {"costMicros", std::round(totalMicros * 10) / 10}, {"sites", sites}};
  rest.push_back(std::move(note));
  findings = std::move(rest);
}

}  // namespace sl::runtime
