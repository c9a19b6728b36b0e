#include "driver/DiffScope.h"

#include <algorithm>
#include <filesystem>
#include <unordered_set>

#include "driver/ProjectIndex.h"

namespace sl {
namespace {

namespace fs = std::filesystem;

bool identStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool identChar(char c) { return identStart(c) || (c >= '0' && c <= '9'); }

// Calls f(word) for each identifier of `text` (bytes >= 0x80 end a word: non-ASCII identifiers
// name no module here that an ASCII stem would match).
template <class F>
void forEachWord(std::string_view text, F&& f) {
  for (size_t i = 0; i < text.size();) {
    if (!identStart(text[i]) || (i > 0 && identChar(text[i - 1]))) { ++i; continue; }
    size_t b = i;
    while (i < text.size() && identChar(text[i])) ++i;
    f(text.substr(b, i - b));
  }
}

}  // namespace

DiffScope::DiffScope(const std::vector<std::string>& paths) : paths_(paths) {
  for (const auto& p : paths_) {
    bool package = false;
    parts_.push_back(ProjectIndex::moduleParts(p, package));
    package_.push_back(package);
    stems_.push_back(parts_.back().empty() ? std::string() : parts_.back().back());
  }
  for (size_t i = 0; i < stems_.size(); ++i) byStem_[stems_[i]].push_back(i);
}

std::vector<bool> DiffScope::firstRound(const std::vector<std::string_view>& texts, const std::vector<bool>& judged) const {
  const size_t n = paths_.size();
  std::vector<bool> lower(judged);
  std::unordered_set<std::string_view> wanted;
  for (size_t i = 0; i < n; ++i)
    if (judged[i]) wanted.insert(stems_[i]);
  std::vector<bool> importer(n, false);
  for (bool grew = !wanted.empty(); grew;) {
    grew = false;
    for (size_t i = 0; i < n; ++i) {
      if (importer[i] || judged[i]) continue;
      bool names = false;
      forEachWord(texts[i], [&](std::string_view w) { names = names || wanted.count(w); });
      if (!names) continue;
      importer[i] = lower[i] = true;
      if (package_[i] && wanted.insert(stems_[i]).second) grew = true;  // re-exports
    }
  }
  for (std::string_view stem : wanted)
    if (auto it = byStem_.find(stem); it != byStem_.end())
      for (size_t m : it->second) lower[m] = true;
  return lower;
}

void DiffScope::modulesCalled(size_t from, const std::string& callee, std::vector<size_t>& out) const {
  std::string full = ProjectIndex::absoluteName(parts_[from], package_[from], callee);
  std::vector<std::string> comps;
  for (size_t b = 0;;) {
    size_t e = full.find('.', b);
    comps.push_back(full.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  // ProjectIndex keys a function by every suffix of its module's parts, then its (maybe dotted)
  // name: the first k components name the module (its parts end with them), the rest the function.
  for (size_t k = 1; k < comps.size(); ++k) {
    auto it = byStem_.find(comps[k - 1]);
    if (it == byStem_.end()) continue;
    for (size_t m : it->second) {
      const auto& p = parts_[m];
      if (p.size() >= k && std::equal(comps.begin(), comps.begin() + long(k), p.end() - long(k))) out.push_back(m);
    }
  }
}

}  // namespace sl
