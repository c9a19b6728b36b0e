// `streamlint run [--out DIR] -- CMD ARGS...`: runs CMD with the recorder preloaded. The recorder
// itself writes one DIR/<host>-<pid>.slog per process that makes CUDA calls; children inherit the
// environment, so torchrun ranks and DataLoader workers are recorded too.
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "cli/Commands.h"

namespace sl::runtime {

namespace {

constexpr const char* kUsage =
    "usage: streamlint run [--out DIR] -- COMMAND [ARGS...]\n"
    "  Runs COMMAND with libstreamlint_interposer.so preloaded; each process that uses CUDA\n"
    "  writes DIR/<host>-<pid>.slog (DIR defaults to ./streamlint-logs).\n"
    "  Then: streamlint report DIR\n";

std::string selfDir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  buf[n] = 0;
  std::string p(buf);
  return p.substr(0, p.rfind('/'));
}

// The library ships next to the binary: <prefix>/bin/streamlint, <prefix>/lib/libstreamlint_interposer.so.
std::string findInterposer() {
  if (const char* e = getenv("SL_INTERPOSER"); e && *e) return e;
  return selfDir() + "/../lib/libstreamlint_interposer.so";
}

bool makeDirs(const std::string& dir) {
  std::string cur;
  size_t i = 0;
  while (i != std::string::npos) {
    i = dir.find('/', i + 1);
    cur = dir.substr(0, i);
    if (!cur.empty() && mkdir(cur.c_str(), 0777) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  return stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

pid_t g_child = -1;
void forward(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

}  // namespace

int runMain(const std::vector<std::string>& args) {
  std::string out = "streamlint-logs";
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") { ++i; break; }
    if (a == "-h" || a == "--help") { std::cout << kUsage; return 0; }
    if (a == "--out" || a == "-o") {
      if (i + 1 >= args.size()) { std::cerr << "streamlint run: --out needs a directory\n" << kUsage; return 2; }
      out = args[++i];
    } else if (a.rfind("--out=", 0) == 0) {
      out = a.substr(6);
    } else if (a.rfind("-", 0) == 0) {
      std::cerr << "streamlint run: unknown option " << a << "\n" << kUsage;
      return 2;
    } else {
      break;  // the command starts here (the `--` is optional)
    }
  }
  if (i >= args.size()) { std::cerr << "streamlint run: no command given\n" << kUsage; return 2; }

  std::string lib = findInterposer();
  char real[PATH_MAX];
  if (!realpath(lib.c_str(), real) || access(real, R_OK) != 0) {
    std::cerr << "streamlint run: the recorder library is missing: " << lib
              << " (set SL_INTERPOSER=/path/to/libstreamlint_interposer.so)\n";
    return 2;
  }
  if (!makeDirs(out) || access(out.c_str(), W_OK) != 0) {
    std::cerr << "streamlint run: cannot write logs to " << out << ": " << strerror(errno) << "\n";
    return 2;
  }
  char absOut[PATH_MAX];
  if (!realpath(out.c_str(), absOut)) snprintf(absOut, sizeof absOut, "%s", out.c_str());

  // Keep what the user preloads already; ours goes first so that its hooks are found first.
  std::string preload = real;
  if (const char* old = getenv("LD_PRELOAD"); old && *old) preload += std::string(":") + old;
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv("SL_OUT_DIR", absOut, 1);

  std::vector<char*> argv;
  for (size_t k = i; k < args.size(); ++k) argv.push_back(const_cast<char*>(args[k].c_str()));
  argv.push_back(nullptr);

  g_child = fork();
  if (g_child < 0) { std::cerr << "streamlint run: fork failed: " << strerror(errno) << "\n"; return 2; }
  if (g_child == 0) {
    execvp(argv[0], argv.data());
    std::cerr << "streamlint run: cannot run " << argv[0] << ": " << strerror(errno) << "\n";
    _exit(127);
  }
  // Ctrl-C reaches the child through the terminal; SIGTERM sent to us is passed on.
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, forward);
  signal(SIGHUP, forward);
  int status = 0;
  while (waitpid(g_child, &status, 0) < 0 && errno == EINTR) {}
  std::cerr << "streamlint: logs in " << absOut << "; see them with: streamlint report " << absOut
            << "\n";
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace sl::runtime
