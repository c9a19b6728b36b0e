#include "driver/ProjectIndex.h"

namespace sl {
std::string ProjectIndex::join(const std::vector<std::string>& parts, size_t begin, size_t end) {
  size_t n = 0;
  for (size_t i = begin; i < end; ++i) n += parts[i].size() + 1;
  std::string out;
  out.reserve(n);
  for (size_t i = begin; i < end; ++i) {
    if (i > begin) out += '.';
    out += parts[i];
  }
  return out;
}

std::vector<size_t> ProjectIndex::partStarts(const std::vector<std::string>& parts) {
  std::vector<size_t> starts(parts.size());
  for (size_t i = 0, at = 0; i < parts.size(); at += parts[i].size() + 1, ++i) starts[i] = at;
  return starts;
}

std::vector<std::string> ProjectIndex::moduleParts(std::string path, bool& package) {
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".py") == 0) path.resize(path.size() - 3);
  std::vector<std::string> parts;
  for (size_t b = 0; b <= path.size();) {
    size_t e = path.find('/', b);
    if (e == std::string::npos) e = path.size();
    std::string part = path.substr(b, e - b);
    if (!part.empty() && part != "." && part != "..") parts.push_back(part);
    b = e + 1;
  }
  package = !parts.empty() && parts.back() == "__init__";
  if (package) parts.pop_back();
  return parts;
}

std::string ProjectIndex::absoluteName(const std::vector<std::string>& parts, bool package, const std::string& callee) {
  if (callee.empty() || callee[0] != '.') return callee;
  // One dot: the importing module's package; each further dot: one package up.
  size_t dots = callee.find_first_not_of('.');
  if (dots == std::string::npos) return "";
  size_t up = dots - (package ? 1 : 0);
  if (up > parts.size()) return "";
  std::string base = join(parts, 0, parts.size() - up);
  return base.empty() ? callee.substr(dots) : base + "." + callee.substr(dots);
}

namespace {

// A function's summary is worth indexing only when a caller can learn something from it.
bool informative(const model::FunctionSummary* s) {
  return s && (s->sync || s->ordersStreams || s->readsParams || s->writesParams);
}

}  // namespace

ProjectIndex::ProjectIndex(const std::vector<const model::Module*>& modules,
                           std::vector<model::ModuleSummary*>& summaries)
    : summaries_(summaries) {
  for (size_t m = 0; m < modules.size(); ++m) {
    bool package = false;
    std::vector<std::string> parts = moduleParts(modules[m]->path, package);
    std::string dotted;  // built for the first informative function
    std::vector<size_t> starts;
    for (const auto& f : modules[m]->functions) {
      if (f.name == "<module>" || !informative(summaries[m]->of(f.name))) continue;
      if (starts.empty()) dotted = join(parts, 0, parts.size()), starts = partStarts(parts);
      for (size_t at : starts) functions_.emplace(dotted.substr(at) + "." + f.name, std::make_pair(m, f.name));
    }
    names_.push_back(std::move(parts));
    package_.push_back(package);
  }
  for (size_t m = 0; m < summaries.size(); ++m)
    summaries[m]->setExternal([this, m](const std::string& callee) { return resolve(m, callee); });
  // Facts only grow, so this ends; the bound guards against pathological call chains.
  for (int round = 0; round < 32; ++round) {
    bool grew = false;
    for (auto* s : summaries) grew |= s->propagate();
    if (!grew) break;
  }
  frozen_ = true;
}

const model::FunctionSummary* ProjectIndex::resolve(size_t from, const std::string& callee) const {
  std::string full = absoluteName(names_[from], package_[from], callee);
  if (full.empty()) return nullptr;
  if (frozen_) {  // the rules' threads: only read what propagation computed
    auto v = views_.find(full);
    return v == views_.end() || !informative(&v->second) ? nullptr : &v->second;
  }
  auto it = functions_.find(full);
  if (it == functions_.end() || it->second.first == from) return nullptr;
  const model::FunctionSummary* s = summaries_[it->second.first]->of(it->second.second);
  if (!s) return nullptr;
  // Across files only facts whose code the prefilter always keeps (python/PyPrefilter.h: units
  // naming synchronize, a stream's waits or record_stream; device kernels) travel, so findings do not depend on
  // what was parsed: explicit syncs, and whether a function orders streams.
  // GPU work, value reads and backward calls stay within their file (keeping every unit that
  // names backward cost 5 % more parsing for a rare case).
  model::FunctionSummary v;
  bool explicitSync = s->sync && (s->sync->sync == model::SyncKind::Device || s->sync->sync == model::SyncKind::Stream ||
                                  s->sync->sync == model::SyncKind::Event);
  if (explicitSync) v.sync = s->sync, v.syncOwner = s->syncOwner, v.syncPath = s->syncPath;
  v.ordersStreams = s->ordersStreams;
  // What it does with its parameters travels too: device kernels are always parsed, and a
  // function other modules call is parsed with its callees (PyPrefilter's roots).
  v.readsParams = s->readsParams, v.writesParams = s->writesParams, v.params = s->params;
  model::FunctionSummary& slot = views_[full];
  slot = v;
  return informative(&v) ? &slot : nullptr;
}

}  // namespace sl
