#include "driver/GitDiff.h"

#include "driver/FileWalk.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

extern char** environ;

namespace sl {
namespace fs = std::filesystem;
namespace {

// Runs `argv` without a shell (REV is user input), returning its stdout; stderr goes to `err`.
bool run(const std::vector<std::string>& argv, std::string& out, std::string& err) {
  int outPipe[2], errPipe[2];
  if (::pipe(outPipe) != 0) return err = std::strerror(errno), false;
  if (::pipe(errPipe) != 0) return err = std::strerror(errno), false;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, outPipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, errPipe[1], 2);
  posix_spawn_file_actions_addclose(&fa, outPipe[0]);
  posix_spawn_file_actions_addclose(&fa, errPipe[0]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(outPipe[1]);
  ::close(errPipe[1]);
  auto drain = [](int fd, std::string& dst) {
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) dst.append(buf, size_t(n));
    ::close(fd);
  };
  if (rc != 0) {
    ::close(outPipe[0]);
    ::close(errPipe[0]);
    err = argv[0] + ": " + std::strerror(rc);
    return false;
  }
  drain(outPipe[0], out);  // git's stderr is a few lines: reading it second cannot block git
  drain(errPipe[0], err);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string canonical(const std::string& p) {
  std::error_code ec;
  return fs::weakly_canonical(fs::absolute(p, ec), ec).string();
}

// Whether this git takes `--end-of-options` (2.24 and later): after it, a REV that starts with
// `-` is a revision, never an option.
bool hasEndOfOptions() {
  std::string out, err;
  if (!run({"git", "version"}, out, err)) return false;
  unsigned major = 0, minor = 0;
  if (std::sscanf(out.c_str(), "git version %u.%u", &major, &minor) != 2) return false;
  return major > 2 || (major == 2 && minor >= 24);
}

}  // namespace

std::string unquoteGitPath(const std::string& field) {
  if (field.empty() || field[0] != '"') {
    // Unquoted: git ends a name that has a space with a TAB (for patch tools).
    return field.ends_with('\t') ? field.substr(0, field.size() - 1) : field;
  }
  std::string out;
  for (size_t i = 1; i < field.size(); ++i) {
    char c = field[i];
    if (c == '"') return out;
    if (c != '\\' || i + 1 == field.size()) {
      out += c;
      continue;
    }
    char e = field[++i];
    if (e >= '0' && e <= '7') {  // \ooo: one byte, as octal (non-ASCII names come as their UTF-8 bytes)
      unsigned v = 0;
      for (int k = 0; k < 3 && i < field.size() && field[i] >= '0' && field[i] <= '7'; ++k, ++i) v = v * 8 + unsigned(field[i] - '0');
      --i;
      out += char(v & 0xff);
      continue;
    }
    switch (e) {
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      default: out += e;  // \" and \\ (and anything else: the character itself)
    }
  }
  return out;
}

void ChangedLines::parseDiff(const std::string& diff, const std::string& top) {
  std::istringstream in(diff);
  std::string line, file, previous;
  for (; std::getline(in, line); previous = line) {
    // A header only after "--- ": an added line "++ x" also reads "+++ x".
    if (line.rfind("+++ ", 0) == 0 && previous.rfind("--- ", 0) == 0) {
      // "+++ b/NAME", or C-quoted ("+++ \"b/caf\\303\\251.py\"") when NAME has special characters.
      const std::string name = unquoteGitPath(line.substr(4));
      file = name.rfind("b/", 0) == 0 ? canonical(top + "/" + name.substr(2)) : "";  // /dev/null: deleted
    } else if (line.rfind("@@ ", 0) == 0 && !file.empty()) {
      // "@@ -a[,b] +c[,d] @@": d new lines from line c; d = 0 is a pure deletion.
      size_t plus = line.find(" +");
      if (plus == std::string::npos) continue;
      unsigned long start = std::strtoul(line.c_str() + plus + 2, nullptr, 10), count = 1;
      size_t comma = line.find_first_of(", ", plus + 2);
      if (comma != std::string::npos && line[comma] == ',') count = std::strtoul(line.c_str() + comma + 1, nullptr, 10);
      if (count) ranges_[file].emplace_back(uint32_t(start), uint32_t(start + count - 1));
    }
  }
}

bool ChangedLines::load(const std::string& rev, const std::string& where, std::string& error) {
  // Never an option, whatever this git is: `--diff --output=FILE` once overwrote FILE.
  if (rev.empty() || rev[0] == '-') {
    error = "--diff takes a revision, not '" + rev + "' (a REV cannot start with '-')";
    return false;
  }
  std::string top, err;
  std::error_code ec;
  std::string dir = fs::is_directory(where, ec) ? where : fs::path(where).parent_path().string();
  if (dir.empty()) dir = ".";
  if (!run({"git", "-C", dir, "rev-parse", "--show-toplevel"}, top, err)) {
    error = "--diff needs a git repository (looked in " + dir + "): " + err;
    return false;
  }
  while (!top.empty() && (top.back() == '\n' || top.back() == '\r')) top.pop_back();
  std::string diff;
  // Explicit prefixes and no external diff tools: the output must be the plain format parsed here
  // whatever the user's git config says.
  std::vector<std::string> argv = {"git", "-C", top, "diff", "-U0", "--no-color", "--no-ext-diff",
                                   "--src-prefix=a/", "--dst-prefix=b/"};
  if (hasEndOfOptions()) argv.push_back("--end-of-options");
  argv.insert(argv.end(), {rev, "--"});
  if (!run(argv, diff, err)) {
    error = "git diff " + rev + " failed: " + err;
    return false;
  }
  parseDiff(diff, top);
  std::string untracked;
  if (run({"git", "-C", top, "ls-files", "--others", "--exclude-standard", "-z"}, untracked, err)) {
    for (size_t b = 0, e; b < untracked.size(); b = e + 1) {
      e = untracked.find('\0', b);
      if (e == std::string::npos) e = untracked.size();
      if (e > b) whole_.insert(canonical(top + "/" + untracked.substr(b, e - b)));
    }
  }
  return true;
}

std::optional<std::vector<std::string>> ChangedLines::cppSourcesToAnalyse() const {
  std::vector<std::string> changed(whole_.begin(), whole_.end());
  for (const auto& [file, r] : ranges_) changed.push_back(file);
  std::vector<std::string> sources;
  for (const auto& f : changed) {
    fs::path p(f);
    std::string ext = p.extension().string(), name = p.filename().string();
    for (const char* h : {".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc", ".ipp", ".tcc", ".def", ".cmake"})
      if (ext == h) return std::nullopt;
    if (name == "CMakeLists.txt" || name == "Makefile" || name == "compile_commands.json" || name == "setup.py")
      return std::nullopt;
    if (classifyPath(f) == InputLang::Cpp) sources.push_back(f);  // the walk's own notion of a TU
  }
  return sources;
}

std::vector<std::string> ChangedLines::changedFiles() const {
  std::vector<std::string> files(whole_.begin(), whole_.end());
  for (const auto& [file, r] : ranges_) files.push_back(file);
  return files;
}

bool ChangedLines::contains(const std::string& path, uint32_t line) const {
  std::string abs = canonical(path);
  if (whole_.count(abs)) return true;
  auto it = ranges_.find(abs);
  if (it == ranges_.end()) return false;
  for (const auto& [first, last] : it->second)
    if (line >= first && line <= last) return true;
  return false;
}

}  // namespace sl
