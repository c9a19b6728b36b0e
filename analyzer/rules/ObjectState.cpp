#include "rules/ObjectState.h"

#include <algorithm>
#include <set>

namespace sl::rules {

using model::EventKind;

std::string stateRoot(const model::Function& f, const std::string& path) {
  size_t end = path.find_first_of(".[");
  std::string head = path.substr(0, end);
  if (head == "self") {
    if (end == std::string::npos || path[end] != '.') return "";
    return path.substr(0, path.find_first_of(".[", end + 1));
  }
  auto it = f.stateOf.find(head);
  return it == f.stateOf.end() ? "" : it->second;
}

std::string classOf(const std::string& name) {
  size_t dot = name.rfind('.');
  return dot == std::string::npos ? "" : name.substr(0, dot);
}

bool writesState(const model::Function& g, const model::Event& e, const std::string& root) {
  if (e.kind != EventKind::Work && stateRoot(g, e.value) == root) return true;
  return std::any_of(e.writes.begin(), e.writes.end(), [&](const std::string& w) { return stateRoot(g, w) == root; });
}

namespace {

// The `self.` attributes GPU work `e` of `f` writes (a copy's destination too).
std::vector<std::string> statesWritten(const model::Function& f, const model::Event& e) {
  std::vector<std::string> out;
  if (e.kind != EventKind::Work && e.kind != EventKind::Copy) return out;
  auto add = [&](const std::string& w) {
    if (std::string root = stateRoot(f, w); !root.empty()) out.push_back(std::move(root));
  };
  for (const auto& w : e.writes) add(w);
  if (e.kind == EventKind::Copy) add(e.value);
  return out;
}

// Visits the events of `callee` and of the methods of its class it calls (a few levels deep,
// each method once), in order; `visit(f, e)` returns false to stop reading that method.
template <typename Visit>
void walkMethods(const model::Module& m, const std::string& callee, int depth, std::set<std::string>& seen,
                 Visit&& visit) {
  const model::Function* f = m.find(callee);
  if (!f || depth > 3 || !seen.insert(callee).second) return;
  const std::string cls = classOf(callee);
  for (const auto& e : f->events) {
    if (!visit(*f, e)) return;
    if (e.kind == EventKind::Call && !cls.empty() && classOf(e.callee) == cls) walkMethods(m, e.callee, depth + 1, seen, visit);
  }
}

}  // namespace

// A wait in the callee does not end its writes: what was queued stays queued.
std::vector<StateRead> stateWritesOf(const model::Module& m, const std::string& callee) {
  std::vector<StateRead> out;
  std::set<std::string> seen;
  if (classOf(callee).empty()) return out;
  walkMethods(m, callee, 0, seen, [&](const model::Function& f, const model::Event& e) {
    if (!e.stream.isSide())
      for (auto& root : statesWritten(f, e)) out.push_back({std::move(root), &e});
    return true;
  });
  return out;
}

std::vector<StateRead> stateReadsOf(const model::Module& m, const std::string& callee) {
  std::vector<StateRead> out;
  std::set<std::string> seen;
  if (classOf(callee).empty()) return out;
  walkMethods(m, callee, 0, seen, [&](const model::Function& f, const model::Event& e) {
    // A callee that orders its own stream first (`self.s.wait_stream(...)`, a host sync) reads
    // what that wait covered: its later reads are not the caller's concern.
    if (e.kind == EventKind::Wait || (e.kind == EventKind::HostSync && e.sync != model::SyncKind::Allocation))
      return false;
    if (e.kind == EventKind::Work || e.kind == EventKind::Copy)
      for (const auto& r : e.reads)
        if (std::string root = stateRoot(f, r); !root.empty()) out.push_back({root, &e});
    return true;
  });
  return out;
}

std::optional<StateWrite> stateWriteBeforeCall(const model::Module& m, const model::Function& f, int region,
                                               const std::function<bool(size_t call)>& skip) {
  const auto& sc = f.scopes[size_t(region)];
  for (size_t i = 0; i < f.events.size(); ++i) {
    const auto& e = f.events[i];
    if (e.kind != EventKind::Call || !model::scopeWithin(f, e.scope, region) || e.stream != sc.stream) continue;
    std::vector<StateRead> reads = stateReadsOf(m, e.callee);
    if (reads.empty() || skip(i)) continue;
    for (size_t k = i; k-- > 0;) {
      const auto& p = f.events[k];
      if (p.stream.isSide() || !model::mayFollow(f, k, i)) continue;
      std::vector<std::string> written = statesWritten(f, p);
      if (p.kind == EventKind::Call && classOf(p.callee) == classOf(f.name) && !classOf(f.name).empty()) {
        // `self._save_grads()` before the region: a method of the class that writes the state.
        for (const auto& w : stateWritesOf(m, p.callee)) written.push_back(w.root);
      }
      for (const auto& root : written) {
        auto hit = std::find_if(reads.begin(), reads.end(), [&](const StateRead& s) { return s.root == root; });
        if (hit != reads.end()) return StateWrite{i, k, root, hit->at};
      }
    }
  }
  return std::nullopt;
}

}  // namespace sl::rules
