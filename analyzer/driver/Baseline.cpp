#include "driver/Baseline.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "core/AtomicWrite.h"
#include "output/Fingerprint.h"

namespace sl {
namespace {

std::string baseDir(const std::string& file) {
  std::error_code ec;
  return std::filesystem::absolute(file, ec).parent_path().string();
}

}  // namespace

bool writeBaseline(const std::string& file, const std::vector<Finding>& findings, std::string& error) {
  Fingerprinter fp(baseDir(file));
  nlohmann::json entries = nlohmann::json::array();
  // Path, line and message are for people reading the file; only the fingerprint is compared.
  for (const auto& f : findings)
    entries.push_back({{"fingerprint", fp.next(f)},
                       {"rule", f.ruleId},
                       {"path", fp.relative(f.path)},
                       {"line", f.loc.line},
                       {"message", f.message}});
  const std::string text =
      nlohmann::json{{"tool", "streamlint"}, {"version", 1}, {"findings", entries}}.dump(
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
  std::map<std::string, int> accepted;  // fingerprint -> entries left
  try {
    nlohmann::json doc = nlohmann::json::parse(in);
    // The version is compared as JSON, not converted: value<int>() of 1e105 is undefined behaviour.
    if (doc.value("tool", "") != "streamlint" || !doc.contains("version") || doc["version"] != 1)
      throw std::runtime_error("not a streamlint baseline (version 1)");
    for (const auto& e : doc.at("findings")) ++accepted[e.at("rule").get<std::string>() + "|" + e.at("fingerprint").get<std::string>()];
  } catch (const std::exception& e) {
    error = file + ": invalid baseline: " + e.what();
    return false;
  }
  Fingerprinter fp(baseDir(file));
  for (auto& f : findings) {
    auto it = accepted.find(f.ruleId + "|" + fp.next(f));
    if (it != accepted.end() && it->second > 0) {
      --it->second;
      ++out.known;
    } else {
      out.fresh.push_back(std::move(f));
    }
  }
  for (const auto& [k, n] : accepted) out.stale += size_t(n);
  return true;
}

}  // namespace sl
