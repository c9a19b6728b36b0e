#include "driver/Baseline.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/AtomicWrite.h"
#include "output/Fingerprint.h"

namespace sl {
namespace fs = std::filesystem;
namespace {

std::string baseDir(const std::string& file) {
  std::error_code ec;
  return fs::weakly_canonical(fs::absolute(file, ec), ec).parent_path().string();
}

// The root that version-2 paths are relative to: the repository holding the baseline (the
// nearest directory above it with a `.git`, a directory or a worktree's file), else the
// baseline's own directory. Another clone, at another path, has the same relative paths.
std::string baselineRoot(const std::string& file, std::string& kind) {
  const std::string dir = baseDir(file);
  std::error_code ec;
  for (fs::path d = dir;; d = d.parent_path()) {
    if (fs::exists(d / ".git", ec)) {
      kind = "repository";
      return d.string();
    }
    if (d == d.parent_path()) break;
  }
  kind = "baseline";
  return dir;
}

}  // namespace

bool writeBaseline(const std::string& file, const std::vector<Finding>& findings, std::string& error) {
  std::string kind;
  Fingerprinter fp(baselineRoot(file, kind), /*portable=*/true);
  nlohmann::json entries = nlohmann::json::array();
  // Path, line and message are for people reading the file; only the fingerprint is compared.
  for (const auto& f : findings)
    entries.push_back({{"fingerprint", fp.next(f)},
                       {"rule", f.ruleId},
                       {"path", fp.relative(f.path)},
                       {"line", f.loc.line},
                       {"message", f.message}});
  const std::string text =
      nlohmann::json{{"tool", "streamlint"}, {"version", 2}, {"root", kind}, {"findings", entries}}.dump(
          2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  // Atomic: a full disk leaves the old baseline (or none), never an empty or half one.
  std::string why;
  if (writeFileAtomically(file, text, why)) return true;
  error = file + ": cannot write baseline: " + why;
  return false;
}

bool applyBaseline(const std::string& file, std::vector<Finding> findings, BaselineResult& out,
                   std::string& error) {
  std::ifstream in(file);
  if (!in) {
    error = file + ": cannot read baseline";
    return false;
  }
  std::map<std::string, int> accepted;  // rule|fingerprint -> entries left
  std::set<std::string> oldAbsolute;    // version 1: the absolute paths its entries name
  int version = 0;
  std::string kind = "baseline";
  try {
    nlohmann::json doc = nlohmann::json::parse(in);
    // The version is compared as JSON, not converted: value<int>() of 1e105 is undefined behaviour.
    if (doc.value("tool", "") != "streamlint" || !doc.contains("version") || (doc["version"] != 1 && doc["version"] != 2))
      throw std::runtime_error("not a streamlint baseline (version 1 or 2)");
    version = doc["version"] == 1 ? 1 : 2;
    if (version == 2) {
      kind = doc.value("root", "");
      if (kind != "repository" && kind != "baseline") throw std::runtime_error("'root' must be \"repository\" or \"baseline\"");
    }
    for (const auto& e : doc.at("findings")) {
      ++accepted[e.at("rule").get<std::string>() + "|" + e.at("fingerprint").get<std::string>()];
      if (version == 1 && e.contains("path") && e["path"].is_string() && e["path"].get<std::string>().rfind('/', 0) == 0)
        oldAbsolute.insert(e["path"].get<std::string>());
    }
  } catch (const std::exception& e) {
    error = file + ": invalid baseline: " + e.what();
    return false;
  }
  std::string found;
  const std::string root = version == 1 ? baseDir(file) : kind == "repository" ? baselineRoot(file, found) : baseDir(file);
  if (version == 2 && kind == "repository" && found != "repository") {
    error = file + ": invalid baseline: written relative to its repository, but no repository (.git) holds it here";
    return false;
  }
  // Version 1 named files outside the baseline's directory by absolute path: in another clone
  // such an entry is recognised by the end of its path (the part below the repository).
  std::string repoKind;
  const std::string repo = baselineRoot(file, repoKind);
  Fingerprinter fp(root, version == 2), moved(root);
  auto take = [&](const std::string& key) {
    auto it = accepted.find(key);
    if (it == accepted.end() || it->second <= 0) return false;
    --it->second;
    return true;
  };
  for (auto& f : findings) {
    bool known = take(f.ruleId + "|" + fp.next(f));
    if (!known && version == 1 && repoKind == "repository") {
      Fingerprinter inRepo(repo, true);
      const std::string rel = inRepo.relative(f.path);
      for (const auto& old : oldAbsolute)
        if (old.size() > rel.size() && old.compare(old.size() - rel.size(), rel.size(), rel) == 0 &&
            old[old.size() - rel.size() - 1] == '/') {
          known = take(f.ruleId + "|" + moved.nextAs(f, old));
          break;
        }
    }
    if (known) ++out.known;
    else out.fresh.push_back(std::move(f));
  }
  for (const auto& [k, n] : accepted) out.stale += size_t(n);
  return true;
}

}  // namespace sl
