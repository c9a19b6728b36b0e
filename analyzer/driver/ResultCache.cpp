#include "driver/ResultCache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <functional>
#include <set>
#include <sstream>

#include "core/AtomicWrite.h"
#include "driver/FileWalk.h"

namespace sl {
namespace fs = std::filesystem;
namespace {

// Bump when CheckResult's meaning or this file's format changes.
constexpr const char* kFormat = "streamlint-result-cache-4";  // 4: the Python half of a run
constexpr size_t kKeep = 16;
// The mark of a directory this cache made (the CACHEDIR.TAG convention: backup tools skip it).
// Only a directory holding it is written to, and only this cache's own entries in it pruned.
constexpr const char* kTagName = "CACHEDIR.TAG";
constexpr std::string_view kTag =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by streamlint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n";
// The .gitignore the cache writes (`*`: never in `git status`); a directory holding exactly this
// and no tag was made by a cache written before the tag existed: it is ours too.
constexpr std::string_view kGitignore = "# Automatically created by streamlint.\n*\n";
// A temporary file this old was left by a killed run (a store takes milliseconds).
constexpr auto kStaleTemp = std::chrono::hours(1);
// Entries are JSON that this cache wrote; nesting deeper than this is damage (and the output
// writers recurse through `properties`).
constexpr int kMaxDepth = 64;

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
// `racy`: set when the file was changed in the second `now` names or later. On a file system
// with 1-second timestamps a same-size write later in that second leaves every field as it is,
// so such a file's identity cannot vouch for its content (git's "racily clean" entries).
std::string fileIdentity(const std::string& path, time_t now, bool& racy) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return "missing";
  racy = racy || st.st_mtim.tv_sec >= now || st.st_ctim.tv_sec >= now;
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

// A whole number from 0 to `max` read back, else damage: get<uint32_t>() of 4.4e119 (or of -1) is
// undefined behaviour, not an exception (the fuzzer found it).
uint64_t whole(const nlohmann::json& j, uint64_t max) {
  if (!j.is_number_unsigned() || j.get<uint64_t>() > max) throw std::runtime_error("not a count");
  return j.get<uint64_t>();
}
uint32_t u32(const nlohmann::json& j) { return uint32_t(whole(j, UINT32_MAX)); }

Finding fromJson(const nlohmann::json& j) {
  Finding f;
  f.ruleId = j.at("r").get<std::string>();
  f.severity = Severity(whole(j.at("s"), uint64_t(Severity::Error)));
  f.path = j.at("p").get<std::string>();
  f.loc = {u32(j.at("l")), u32(j.at("c"))};
  f.message = j.at("m").get<std::string>();
  for (const auto& n : j.at("n"))
    f.notes.push_back({n.at(0).get<std::string>(), {u32(n.at(1)), u32(n.at(2))},
                       n.at(3).get<std::string>()});
  f.properties = j.at("x");
  for (const auto& fx : j.at("f")) {
    Fix fix{fx.at(0).get<std::string>(), {}};
    for (const auto& e : fx.at(1))
      fix.edits.push_back({{u32(e.at(0)), u32(e.at(1))}, {u32(e.at(2)), u32(e.at(3))}, e.at(4).get<std::string>()});
    f.fixes.push_back(std::move(fix));
  }
  return f;
}

nlohmann::json listJson(const std::vector<Finding>& list) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& f : list) a.push_back(toJson(f));
  return a;
}

// Positions of a finding read back: 1-based lines and columns, starts before ends. A damaged
// entry's line 0 once crashed `--fix --diff-only` and the SARIF writer.
void checkPlaces(const Finding& f) {
  for (const auto& fx : f.fixes)
    for (const auto& e : fx.edits)
      if (!e.start.line || !e.start.col || !e.end.line || !e.end.col || e.end < e.start)
        throw std::runtime_error("bad edit position");
  for (const auto& n : f.notes)
    if (!n.loc.line != !n.loc.col) throw std::runtime_error("bad note position");
  if (!f.loc.line != !f.loc.col) throw std::runtime_error("bad position");
}

std::vector<Finding> listFrom(const nlohmann::json& a) {
  std::vector<Finding> out;
  for (const auto& j : a) {
    out.push_back(fromJson(j));
    checkPlaces(out.back());
  }
  return out;
}

// Whether `dir` is a directory this cache made: it holds the tag (or an old cache's .gitignore).
bool ownedByCache(const fs::path& dir) {
  std::string text;
  if (readAll((dir / kTagName).string(), text)) return text.starts_with(kTag.substr(0, kTag.find('\n')));
  text.clear();
  return readAll((dir / ".gitignore").string(), text) && text == kGitignore;
}

// An entry's file name: 32 hex digits and ".json", as store() names them.
bool isEntryName(const std::string& name) {
  if (name.size() != 32 + 5 || !name.ends_with(".json")) return false;
  return std::all_of(name.begin(), name.end() - 5, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// A temporary file a store makes: writeFileAtomically's (".<entry>.sl-tmp-...") or, before it,
// "<key>.tmp<pid>".
bool isTempName(const std::string& name) {
  if (name.find(kAtomicTempMarker) != std::string::npos && name.starts_with(".") && isEntryName(name.substr(1, 37)))
    return true;
  return name.size() > 32 + 4 && name.compare(32, 4, ".tmp") == 0 && isEntryName(name.substr(0, 32) + ".json");
}

// Makes `dir` as the cache's own (tagged, and hidden from git), or accepts it when it is one
// already. Any other existing directory (`--cache-dir .`, a committed `.streamlint_cache`
// symlink into the tree) is not the cache's to write in: `why` says so. `failed`: a write failed
// (a full disk), not a directory that is not ours.
bool claim(const fs::path& dir, std::string& why, bool& failed) {
  std::error_code ec;
  struct stat st{};
  if (::lstat(dir.c_str(), &st) == 0) {
    // A symlink is followed only to a directory the cache made (a link to a shared cache).
    if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && ownedByCache(dir)) return true;
    why = "not caching in " + dir.string() + ": it exists and was not made by streamlint (no " + kTagName + ")";
    return false;
  }
  if (!fs::create_directories(dir, ec) || ec) {
    why = "not caching in " + dir.string() + ": " + (ec ? ec.message() : "cannot create it");
    return false;
  }
  std::string err;
  // Like ruff's cache: never shows up in `git status`.
  for (const auto& [name, text] : {std::pair<std::string, std::string_view>{".gitignore", kGitignore},
                                   {kTagName, kTag}})
    if (!writeFileAtomically((dir / name).string(), text, err)) {
      why = "cannot write " + (dir / name).string() + ": " + err;
      failed = true;
      // Not left untagged (a later run would take it for someone else's): the directory it made
      // goes, unless something else is in it by now.
      fs::remove(dir / ".gitignore", ec);
      fs::remove(dir, ec);
      return false;
    }
  return true;
}

// Keeps the newest kKeep entries and removes temporary files a killed run left; touches nothing
// it does not recognise as its own.
void prune(const fs::path& results) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(results, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code e2;
    if (!it->is_regular_file(e2)) continue;
    const auto written = it->last_write_time(e2);
    if (e2) continue;
    if (isEntryName(name)) entries.emplace_back(written, it->path());
    else if (isTempName(name) && now - written > kStaleTemp) fs::remove(it->path(), e2);
  }
  if (entries.size() <= kKeep) return;
  std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (size_t i = kKeep; i < entries.size(); ++i) fs::remove(entries[i].second, ec);
}

// JSON no deeper than kMaxDepth (deeper throws, as damage does).
nlohmann::json parseShallow(const std::string& text) {
  return nlohmann::json::parse(text, [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxDepth) throw std::runtime_error("nested too deeply");
    return true;
  });
}

}  // namespace

ResultCache::ResultCache(std::string dir) : dir_(dir.empty() ? defaultDir() : std::move(dir)) {}

std::string ResultCache::defaultDir() {
  const char* env = std::getenv("STREAMLINT_CACHE_DIR");
  return env && *env ? env : ".streamlint_cache";
}

std::string ResultCache::keyFor(const CheckOptions& opts, bool* cppWork, WalkResult* walk) {
  const time_t now = ::time(nullptr);  // before any stat: a change after it must count as racy
  WalkResult inputs = walkInputs(opts.paths);
  if (walk) *walk = inputs;
  // The C/C++ half runs every time: it has files to analyse or list, or a database to read.
  if (cppWork) *cppWork = !inputs.cpp.empty() || !opts.cxx.compileDbDir.empty();
  if (opts.dumpModel) return "";
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
  list("languages", opts.languages);
  list("extend-exclude", opts.extendExclude);
  if (opts.pythonOnly) list("judged", *opts.pythonOnly);  // --diff: only these files were judged
  const char* noPrefilter = std::getenv("STREAMLINT_NO_PREFILTER");
  key << "flags " << opts.reportUnusedSuppressions << opts.checkDeliberateCode << opts.prefilter
      << (noPrefilter && *noPrefilter) << opts.keepGoing << " " << opts.minConfidence << "\n";
  if (!opts.configFile.empty()) key << "config " << opts.configFile << " " << contentHash(opts.configFile) << "\n";
  for (const auto& e : inputs.errors) key << "error " << e << "\n";
  bool racy = false;
  for (const auto& f : inputs.python) key << "py " << f << " " << fileIdentity(f, now, racy) << "\n";
  if (racy) return "";  // analysed, and not stored: the next run in a later second may be
  describeAncestors(inputs.python, key);
  const std::string text = key.str();
  // Two independent 64-bit hashes: a collision would serve another tree's findings.
  return hex(std::hash<std::string>{}(text)) + hex(std::hash<std::string>{}(text + "\x01"));
}

std::optional<CheckResult> ResultCache::load(const std::string& key) const {
  std::string text;
  if (key.empty() || !readAll(dir_ + "/results/" + key + ".json", text)) return std::nullopt;
  try {
    auto j = parseShallow(text);
    if (j.at("format") != kFormat) return std::nullopt;
    CheckResult r;
    r.findings = listFrom(j.at("findings"));
    r.diagnostics = listFrom(j.at("diagnostics"));
    r.hiddenDeliberate = listFrom(j.at("hidden"));
    r.files = whole(j.at("files"), SIZE_MAX);
    r.bytes = whole(j.at("bytes"), SIZE_MAX);
    r.hiddenUnsure = whole(j.at("unsure"), SIZE_MAX);
    r.fixBasis = j.at("fixBasis").get<std::map<std::string, std::string>>();
    return r;
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged entry is a miss; the run rewrites it
  }
}

ResultCache::Stored ResultCache::store(const std::string& key, const CheckResult& res) const {
  if (key.empty()) return {};
  std::string why;
  bool failed = false;
  if (!claim(dir_, why, failed)) return {why, failed};
  std::error_code ec;
  const fs::path results = fs::path(dir_) / "results";
  fs::create_directories(results, ec);
  if (ec) return {"not caching in " + dir_ + ": " + ec.message(), false};
  nlohmann::json j = {{"format", kFormat},           {"findings", listJson(res.findings)},
                      {"diagnostics", listJson(res.diagnostics)}, {"hidden", listJson(res.hiddenDeliberate)},
                      {"files", res.files},          {"bytes", res.bytes},
                      {"unsure", res.hiddenUnsure},  {"fixBasis", res.fixBasis}};
  // Atomic: a concurrent run never reads half an entry, a full disk leaves no damaged one.
  std::string err;
  const std::string entry = (results / (key + ".json")).string();
  const bool ok =
      writeFileAtomically(entry, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), err);
  // Keep the newest entries only: one per recent tree state is all a re-run needs.
  prune(results);
  if (ok) return {};
  return {"cannot write the cache entry " + entry + ": " + err, true};
}

}  // namespace sl
