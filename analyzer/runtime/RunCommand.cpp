// `streamlint run [--out DIR] -- CMD ARGS...`: runs CMD with the recorder preloaded. The recorder
// itself writes one DIR/<host>-<pid>[.N].slog per process that makes CUDA calls; children inherit the
// environment, so torchrun ranks and DataLoader workers are recorded too.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/Commands.h"
#include "core/Executable.h"
#include "runtime/LogReader.h"
#include "streamlint/GpuTimingSpec.h"
#include "streamlint/RecorderSettings.h"

namespace sl::runtime {

namespace {

constexpr const char* kUsage =
    "usage: streamlint run [--out DIR] [--sanitize [--sanitize-sample ON/EVERY]] [--gpu-timing MODE]\n"
    "                      [--gpu-sample ON/EVERY] [--gpu-first DURATION] -- COMMAND [ARGS...]\n"
    "  Runs COMMAND with libstreamlint_interposer.so preloaded; each process that uses CUDA\n"
    "  writes DIR/<host>-<pid>.slog (DIR defaults to ./streamlint-logs).\n"
    "  Every CUDA call is recorded on the host. GPU timing (CUPTI: kernels, copies, sets) costs\n"
    "  about a microsecond per kernel, so by default it is sampled:\n"
    "    --gpu-timing sampled   the first 10 s of CUDA work, then 100 ms of every 2 s (default)\n"
    "    --gpu-timing always    from the first CUDA call to exit (short runs, exact counts)\n"
    "    --gpu-timing off       host calls only\n"
    "    --gpu-sample ON/EVERY  sampled windows, e.g. 100ms/2s;  --gpu-first DURATION, e.g. 10s\n"
    "  --sanitize               also record what SL904 (stream races) needs: each launch's device\n"
    "                           pointers, the caching allocator's blocks (Python, LibTorch), lost-record\n"
    "                           windows; larger rings (SL_RING_KB=4096 unless set)\n"
    "    --sanitize-sample ON/EVERY  long runs: launches' pointers only during ON of every EVERY\n"
    "                           (e.g. 100ms/2s); ordering calls, copies and blocks throughout; blocks\n"
    "                           first used outside a window are not judged\n"
    "  Exit status: the program's (128+N: killed by signal N; 126: cannot be run; 127: not found);\n"
    "  2 before it starts when an option, --out or SL_MAX_LOG_MB (whole MB, 0: no cap) is invalid.\n"
    "  SIGINT/SIGTERM/SIGHUP sent to run are passed to the program.\n"
    "  Then: streamlint report DIR\n";

// The logs in `dir` and their modification times. Compared before and after the run: a process
// that never called CUDA leaves none (the recorder starts at the first CUDA call), and "see them
// with report" would then mislead. (Not compared with the clock: file times come from the
// kernel's coarse clock and can read earlier than a clock_gettime taken before the run.)
std::map<std::string, std::pair<long, long>> logsIn(const char* dir) {
  std::map<std::string, std::pair<long, long>> logs;
  DIR* d = opendir(dir);
  if (!d) return logs;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() < 5 || name.compare(name.size() - 5, 5, ".slog") != 0) continue;
    struct stat st{};
    if (stat((std::string(dir) + "/" + name).c_str(), &st) == 0)
      logs[name] = {long(st.st_mtim.tv_sec), long(st.st_mtim.tv_nsec)};
  }
  closedir(d);
  return logs;
}

// The library ships next to the binary: <prefix>/bin/streamlint, <prefix>/lib/libstreamlint_interposer.so.
std::string findInterposer() {
  if (const char* e = getenv("SL_INTERPOSER"); e && *e) return e;
  return executableDir() + "/../lib/libstreamlint_interposer.so";
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

// Options that take a value; those with `env` are handed to the recorder through it.
struct Option {
  const char* name;
  const char* env;
  bool (*valid)(const std::string&);
  const char* expected;
};
const Option kOptions[] = {
    {"--out", nullptr, nullptr, ""},
    {"--gpu-timing", "SL_GPU_TIMING",
     [](const std::string& v) { slog::GpuTiming t; return slog::parseGpuTiming(v.c_str(), t); },
     "sampled, always or off"},
    {"--gpu-sample", "SL_GPU_SAMPLE",
     [](const std::string& v) { slog::GpuSample s; return slog::parseSample(v.c_str(), s); },
     "ON/EVERY with 0 < ON < EVERY, e.g. 100ms/2s"},
    {"--sanitize-sample", "SL_SANITIZE_SAMPLE",
     [](const std::string& v) { slog::GpuSample s; return slog::parseSample(v.c_str(), s); },
     "ON/EVERY with 0 < ON < EVERY, e.g. 100ms/2s"},
    {"--gpu-first", "SL_GPU_FIRST", [](const std::string& v) { uint64_t ns; return slog::parseDuration(v.c_str(), ns); },
     "a duration, e.g. 2s or 500ms"},
};

// Sanitize mode: the recorder's switch, larger rings (a lost record costs a window, not just a
// count), and the Python side (share/streamlint/python/sitecustomize.py) first on PYTHONPATH so
// that torch's allocator traces its blocks from CUDA's initialization on.
bool setUpSanitize() {
  std::string py = executableDir() + "/../share/streamlint/python";
  char real[PATH_MAX];
  if (!realpath((py + "/sitecustomize.py").c_str(), real)) {
    std::cerr << "streamlint run: --sanitize needs " << py << "/sitecustomize.py, which is missing\n";
    return false;
  }
  std::string dir(real);
  dir = dir.substr(0, dir.rfind('/'));
  setenv("SL_SANITIZE", "1", 1);
  setenv("SL_RING_KB", "4096", 0);
  std::string path = dir;
  if (const char* old = getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
  setenv("PYTHONPATH", path.c_str(), 1);
  return true;
}

pid_t g_child = -1;
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP};

// A supervisor's SIGINT or SIGTERM (kill, a scheduler, timeout) is the program's to handle. The
// terminal's (Ctrl-C, hang-up: si_code SI_KERNEL) already reached it, in our foreground process
// group: forwarding those would interrupt it twice (a KeyboardInterrupt inside its except block).
void forward(int sig, siginfo_t* info, void*) {
  if (info && info->si_code == SI_KERNEL) return;
  if (g_child > 0) kill(g_child, sig);
}

// Installed before the fork, with the signals blocked until the child's pid is known, so none
// is lost in between. Signals ignored when we started stay ignored, for the program too.
void forwardSignals(sigset_t& blocked, sigset_t& old) {
  sigemptyset(&blocked);
  for (int sig : kForwarded) {
    struct sigaction cur{};
    sigaction(sig, nullptr, &cur);
    if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN) continue;
    struct sigaction sa{};
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
    sigaddset(&blocked, sig);
  }
  sigprocmask(SIG_BLOCK, &blocked, &old);
}

// What the recorder's trailer says it could not write; a log without one was not finished (the
// process was killed, or still runs). Read from the end only: logs can be gigabytes.
void sayLosses(const std::string& path) {
  std::optional<slog::TrailerRecord> t;
  if (!readTrailerAtEnd(path, t)) return;
  if (!t) {
    std::cerr << "streamlint: " << path << " has no trailer: the process was killed or still runs (its last records are lost)\n";
    return;
  }
  for (const auto& m : unwrittenParts(path, *t)) std::cerr << "streamlint: " << m << "\n";
}

}  // namespace

int runMain(const std::vector<std::string>& args) {
  std::string out = "streamlint-logs";
  std::vector<std::pair<const char*, std::string>> env;  // settings passed to the recorder
  bool sanitize = getenv("SL_SANITIZE") && *getenv("SL_SANITIZE") && *getenv("SL_SANITIZE") != '0';
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") { ++i; break; }
    if (a == "-h" || a == "--help") { std::cout << kUsage; return 0; }
    if (a == "--sanitize") { sanitize = true; continue; }
    if (a.rfind("-", 0) != 0) break;  // the command starts here (the `--` is optional)
    std::string name = a == "-o" ? "--out" : a.substr(0, a.find('='));
    const Option* opt = nullptr;
    for (const auto& o : kOptions)
      if (name == o.name) opt = &o;
    if (!opt) { std::cerr << "streamlint run: unknown option " << a << "\n" << kUsage; return 2; }
    std::string v;
    if (a.find('=') != std::string::npos) {
      v = a.substr(a.find('=') + 1);
    } else if (i + 1 < args.size()) {
      v = args[++i];
    } else {
      std::cerr << "streamlint run: " << name << " needs a value\n" << kUsage;
      return 2;
    }
    if (opt->valid && !opt->valid(v)) {
      std::cerr << "streamlint run: " << name << " " << v << ": expected " << opt->expected << "\n";
      return 2;
    }
    if (opt->env) env.emplace_back(opt->env, v);
    else out = v;
  }
  if (i >= args.size()) { std::cerr << "streamlint run: no command given\n" << kUsage; return 2; }
  for (const auto& [name, v] : env)
    if (!sanitize && std::string(name) == "SL_SANITIZE_SAMPLE") {
      std::cerr << "streamlint run: --sanitize-sample samples --sanitize's recording: give --sanitize too\n";
      return 2;
    }

  // Checked here because the recorder, inside the program, can only refuse to record.
  uint64_t capBytes = 0;
  if (const char* v = getenv("SL_MAX_LOG_MB"); v && *v && !slog::parseLogCapMb(v, capBytes)) {
    std::cerr << "streamlint run: SL_MAX_LOG_MB=" << v << ": expected a whole number of MB (0: no cap)\n";
    return 2;
  }

  std::string lib = findInterposer();
  char real[PATH_MAX];
  if (!realpath(lib.c_str(), real) || access(real, R_OK) != 0) {
    std::cerr << "streamlint run: the recorder library is missing: " << lib
              << " (set SL_INTERPOSER=/path/to/libstreamlint_interposer.so)\n";
    return 2;
  }
  // access(W_OK) says yes to root on /proc and read-only mounts: create a file to be sure.
  auto canCreate = [](const std::string& dir) {
    std::string probe = dir + "/.streamlint-probe-" + std::to_string(getpid());
    int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    close(fd);
    unlink(probe.c_str());
    return true;
  };
  if (!makeDirs(out) || access(out.c_str(), W_OK) != 0 || !canCreate(out)) {
    std::cerr << "streamlint run: cannot write logs to " << out << ": " << strerror(errno) << "\n";
    return 2;
  }
  char absOut[PATH_MAX];
  if (!realpath(out.c_str(), absOut)) {
    std::cerr << "streamlint run: --out " << out << ": " << strerror(errno) << "\n";
    return 2;
  }
  if (strlen(absOut) > slog::kMaxOutDirBytes) {
    std::cerr << "streamlint run: --out " << out << ": the directory's path is too long (at most "
              << slog::kMaxOutDirBytes << " bytes once absolute)\n";
    return 2;
  }

  // Keep what the user preloads already; ours goes first so that its hooks are found first.
  std::string preload = real;
  if (const char* old = getenv("LD_PRELOAD"); old && *old) preload += std::string(":") + old;
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv("SL_OUT_DIR", absOut, 1);
  for (const auto& [name, v] : env) setenv(name, v.c_str(), 1);
  if (sanitize && !setUpSanitize()) return 2;

  std::vector<char*> argv;
  for (size_t k = i; k < args.size(); ++k) argv.push_back(const_cast<char*>(args[k].c_str()));
  argv.push_back(nullptr);

  const auto before = logsIn(absOut);
  const pid_t parent = getpid();  // (we may be PID 1 in a container: compare, do not assume)
  sigset_t blocked, oldMask;
  forwardSignals(blocked, oldMask);
  g_child = fork();
  if (g_child < 0) { std::cerr << "streamlint run: fork failed: " << strerror(errno) << "\n"; return 2; }
  if (g_child == 0) {
    // If `streamlint run` itself is killed (SIGKILL cannot be forwarded), the program goes too
    // instead of running on orphaned; the race with our death before this call is checked.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(128 + SIGKILL);
    sigprocmask(SIG_SETMASK, &oldMask, nullptr);  // exec resets our handlers, not the mask
    execvp(argv[0], argv.data());
    // The shell's codes: 127 not found, 126 found but not runnable (no permission, not a program).
    const int err = errno;
    std::cerr << "streamlint run: cannot run " << argv[0] << ": " << strerror(err) << "\n";
    _exit(err == ENOENT || err == ENOTDIR ? 127 : 126);
  }
  sigprocmask(SIG_SETMASK, &oldMask, nullptr);
  int status = 0;
  while (waitpid(g_child, &status, 0) < 0 && errno == EINTR) {}
  size_t logs = 0;
  for (const auto& [name, mtime] : logsIn(absOut)) {
    auto it = before.find(name);
    if (it != before.end() && it->second == mtime) continue;
    ++logs;
    sayLosses(std::string(absOut) + "/" + name);
  }
  if (logs)
    std::cerr << "streamlint: " << logs << (logs == 1 ? " log" : " logs") << " in " << absOut
              << "; see them with: streamlint report " << absOut << "\n";
  else
    std::cerr << "streamlint: no log written: the program made no CUDA call (the recorder starts at the first one)\n";
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace sl::runtime
