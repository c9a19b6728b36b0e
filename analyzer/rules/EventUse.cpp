#include "rules/EventUse.h"

#include <set>
#include <string>

#include "rules/RuleHelpers.h"

namespace sl::rules {
namespace {

using model::EventKind;

// The last member of an access path, with its subscripts: "ctx->done" -> "done",
// "p->pool[][].h2d[]" -> "h2d[]", "this->done_" -> "done_".
std::string member(const std::string& path) {
  size_t cut = 0;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '.') cut = i + 1;
    else if (path[i] == '-' && i + 1 < path.size() && path[i + 1] == '>') cut = i + 2;
  }
  return path.substr(cut);
}

}  // namespace

std::vector<UnusedRecord> unusedRecords(const model::Module& m) {
  std::vector<UnusedRecord> out;
  if (m.lang != model::Lang::Cpp) return out;
  std::set<std::string> created, used;
  for (const auto& f : m.functions) {
    for (const auto& e : f.events)
      if (e.kind == EventKind::EventCreate && !e.value.empty()) created.insert(member(e.value));
    for (const auto* list : {&f.eventUses, &f.returned, &f.escaped})
      for (const auto& v : *list) used.insert(member(v));
  }
  for (const auto& f : m.functions) {
    std::set<std::string> seen;
    for (size_t i = 0; i < f.events.size(); ++i) {
      const auto& r = f.events[i];
      if (r.kind != EventKind::EventRecord || r.value.empty()) continue;
      const std::string key = member(r.value);
      if (!created.count(key) || used.count(key) || !seen.insert(key).second) continue;
      UnusedRecord u;
      u.fn = &f;
      u.record = &r;
      for (size_t k = i; k-- > 0;) {
        const auto& e = f.events[k];
        const bool work = e.kind == EventKind::Work || e.kind == EventKind::Copy || e.kind == EventKind::Wait;
        if (work && sameStream(e.stream, r.stream) && e.value != r.value) {
          u.afterWork = true;
          u.work = &e;
          break;
        }
      }
      out.push_back(u);
    }
  }
  return out;
}

}  // namespace sl::rules
