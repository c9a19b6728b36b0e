#include "driver/ResultCache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "driver/FileWalk.h"

namespace sl {
namespace fs = std::filesystem;
namespace {

// Bump when CheckResult's meaning or this file's format changes.
constexpr const char* kFormat = "streamlint-result-cache-2";
constexpr size_t kKeep = 16;

// Reads a whole file; false when it cannot be read (the key then says so: the run reports it).
bool readAll(const std::string& path, std::string& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st{};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) out.reserve(size_t(st.st_size));
  char buf[1 << 16];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  ::close(fd);
  return true;
}

std::string hex(size_t h) {
  char s[17];
  std::snprintf(s, sizeof s, "%016zx", h);
  return s;
}

// What changes when a file is written: its size, inode, mtime and ctime (to the nanosecond).
std::string fileIdentity(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return "missing";
  return std::to_string(st.st_size) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_ctim.tv_sec) + "." +
         std::to_string(st.st_ctim.tv_nsec);
}

std::string contentHash(const std::string& path) {
  std::string text;
  if (!readAll(path, text)) return "unreadable";
  return hex(std::hash<std::string_view>{}(text)) + ":" + std::to_string(text.size());
}

// The directories above every input, each once: their configs and git roots decide the result.
void describeAncestors(const std::vector<std::string>& files, std::ostringstream& key) {
  std::set<std::string> dirs;
  for (const auto& f : files) {
    std::error_code ec;
    for (fs::path d = fs::absolute(f, ec).lexically_normal().parent_path();; d = d.parent_path()) {
      if (!dirs.insert(d.string()).second) break;
      if (d == d.parent_path()) break;
    }
  }
  for (const auto& d : dirs) {
    std::error_code ec;
    key << "dir " << d;
    for (const char* name : {".streamlint.toml", "pyproject.toml"})
      if (fs::is_regular_file(d + "/" + name, ec)) key << " " << name << "=" << contentHash(d + "/" + name);
    if (fs::exists(d + "/.git", ec)) key << " git";
    key << "\n";
  }
}

nlohmann::json toJson(const Finding& f) {
  nlohmann::json notes = nlohmann::json::array();
  for (const auto& n : f.notes) notes.push_back({n.path, n.loc.line, n.loc.col, n.message});
  nlohmann::json fixes = nlohmann::json::array();
  for (const auto& fx : f.fixes) {
    nlohmann::json edits = nlohmann::json::array();
    for (const auto& e : fx.edits) edits.push_back({e.start.line, e.start.col, e.end.line, e.end.col, e.text});
    fixes.push_back({fx.description, edits});
  }
  return {{"r", f.ruleId}, {"s", int(f.severity)}, {"p", f.path}, {"l", f.loc.line}, {"c", f.loc.col},
          {"m", f.message}, {"n", notes}, {"x", f.properties}, {"f", fixes}};
}

Finding fromJson(const nlohmann::json& j) {
  Finding f;
  f.ruleId = j.at("r").get<std::string>();
  f.severity = Severity(j.at("s").get<int>());
  f.path = j.at("p").get<std::string>();
  f.loc = {j.at("l").get<uint32_t>(), j.at("c").get<uint32_t>()};
  f.message = j.at("m").get<std::string>();
  for (const auto& n : j.at("n"))
    f.notes.push_back({n.at(0).get<std::string>(), {n.at(1).get<uint32_t>(), n.at(2).get<uint32_t>()},
                       n.at(3).get<std::string>()});
  f.properties = j.at("x");
  for (const auto& fx : j.at("f")) {
    Fix fix{fx.at(0).get<std::string>(), {}};
    for (const auto& e : fx.at(1))
      fix.edits.push_back({{e.at(0).get<uint32_t>(), e.at(1).get<uint32_t>()},
                           {e.at(2).get<uint32_t>(), e.at(3).get<uint32_t>()}, e.at(4).get<std::string>()});
    f.fixes.push_back(std::move(fix));
  }
  return f;
}

nlohmann::json listJson(const std::vector<Finding>& list) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& f : list) a.push_back(toJson(f));
  return a;
}

std::vector<Finding> listFrom(const nlohmann::json& a) {
  std::vector<Finding> out;
  for (const auto& j : a) out.push_back(fromJson(j));
  return out;
}

}  // namespace

ResultCache::ResultCache(std::string dir) : dir_(dir.empty() ? defaultDir() : std::move(dir)) {}

std::string ResultCache::defaultDir() {
  const char* env = std::getenv("STREAMLINT_CACHE_DIR");
  return env && *env ? env : ".streamlint_cache";
}

std::string ResultCache::keyFor(const CheckOptions& opts) {
  if (opts.dumpModel || !opts.cxx.compileDbDir.empty()) return "";
  WalkResult inputs = walkInputs(opts.paths);
  if (!inputs.cpp.empty()) return "";
  std::ostringstream key;
  key << kFormat << "\n";
  struct stat self{};
  if (::stat("/proc/self/exe", &self) != 0) return "";
  key << "exe " << self.st_size << " " << self.st_ino << " " << self.st_mtim.tv_sec << "." << self.st_mtim.tv_nsec << "\n";
  std::error_code ec;
  key << "cwd " << fs::current_path(ec).string() << "\n";
  auto list = [&](const char* name, const std::vector<std::string>& v) {
    key << name;
    for (const auto& s : v) key << " " << s;
    key << "\n";
  };
  list("paths", opts.paths);
  list("select", opts.select);
  list("ignore", opts.ignore);
  if (opts.pythonOnly) list("judged", *opts.pythonOnly);  // --diff: only these files were judged
  const char* noPrefilter = std::getenv("STREAMLINT_NO_PREFILTER");
  key << "flags " << opts.reportUnusedSuppressions << opts.checkDeliberateCode << opts.prefilter
      << (noPrefilter && *noPrefilter) << opts.keepGoing << " " << opts.minConfidence << "\n";
  if (!opts.configFile.empty()) key << "config " << opts.configFile << " " << contentHash(opts.configFile) << "\n";
  for (const auto& e : inputs.errors) key << "error " << e << "\n";
  for (const auto& f : inputs.python) key << "py " << f << " " << fileIdentity(f) << "\n";
  describeAncestors(inputs.python, key);
  const std::string text = key.str();
  // Two independent 64-bit hashes: a collision would serve another tree's findings.
  return hex(std::hash<std::string>{}(text)) + hex(std::hash<std::string>{}(text + "\x01"));
}

std::optional<CheckResult> ResultCache::load(const std::string& key) const {
  std::string text;
  if (key.empty() || !readAll(dir_ + "/results/" + key + ".json", text)) return std::nullopt;
  try {
    auto j = nlohmann::json::parse(text);
    if (j.at("format") != kFormat) return std::nullopt;
    CheckResult r;
    r.findings = listFrom(j.at("findings"));
    r.diagnostics = listFrom(j.at("diagnostics"));
    r.hiddenDeliberate = listFrom(j.at("hidden"));
    r.files = j.at("files").get<size_t>();
    r.bytes = j.at("bytes").get<size_t>();
    r.hiddenUnsure = j.at("unsure").get<size_t>();
    return r;
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged entry is a miss; the run rewrites it
  }
}

void ResultCache::store(const std::string& key, const CheckResult& res) const {
  if (key.empty()) return;
  std::error_code ec;
  const fs::path results = fs::path(dir_) / "results";
  fs::create_directories(results, ec);
  if (ec) return;
  // Like ruff's cache: never shows up in `git status`.
  if (!fs::exists(fs::path(dir_) / ".gitignore", ec)) std::ofstream(fs::path(dir_) / ".gitignore") << "# Automatically created by streamlint.\n*\n";
  nlohmann::json j = {{"format", kFormat},           {"findings", listJson(res.findings)},
                      {"diagnostics", listJson(res.diagnostics)}, {"hidden", listJson(res.hiddenDeliberate)},
                      {"files", res.files},          {"bytes", res.bytes},
                      {"unsure", res.hiddenUnsure}};
  // Written under a temporary name and renamed: a concurrent run never reads half an entry.
  const fs::path tmp = results / (key + ".tmp" + std::to_string(::getpid()));
  {
    std::ofstream out(tmp);
    out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (!out) { fs::remove(tmp, ec); return; }
  }
  fs::rename(tmp, results / (key + ".json"), ec);
  // Keep the newest entries only: one per recent tree state is all a re-run needs.
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  for (fs::directory_iterator it(results, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") entries.emplace_back(it->last_write_time(ec), it->path());
  if (entries.size() <= kKeep) return;
  std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (size_t i = kKeep; i < entries.size(); ++i) fs::remove(entries[i].second, ec);
}

}  // namespace sl
