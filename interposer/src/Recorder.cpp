// Recorder core (see Recorder.h). Process events are handled here and only here:
//   start   lazily, at the first recorded CUDA call, so processes that never touch CUDA (shells,
//           compilers spawned by torch.compile) leave no log;
//   exit    atexit + destructor: drain every ring, write modules and the trailer;
//   signals from the first CUDA call on, SIGTERM/SIGINT/SIGHUP still at their default action:
//           drain, write the trailer, die of the signal as before (no handler before that: the
//           program, CPython included, sees the dispositions it started with);
//   fork    the child forgets the parent's rings and writer and starts its own log lazily.
// Lock order: g_startMutex (slow path only) -> g_fileLock (spin; writer, exit, signal, direct).
#include "Recorder.h"
#include "LaunchEnv.h"
#include "streamlint/RecorderSettings.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <mutex>
#include <new>

#include "GpuWindows.h"
#include "RealDlsym.h"
#include "Sanitize.h"
#include "ThreadStarts.h"
#include "UserFrames.h"

namespace sl::ip {

std::atomic<uint64_t> g_generation{1};
bool g_tscClock = false;
__thread ThreadState* t_state __attribute__((tls_model("initial-exec"))) = nullptr;
__thread int t_depth __attribute__((tls_model("initial-exec"))) = 0;

namespace {

enum class State : int { Idle, On, Off, Finished };
std::atomic<State> g_state{State::Idle};
std::atomic<ThreadState*> g_threads{nullptr};
std::atomic<uint64_t> g_ringBytesHeld{0}, g_otherBytes{0}, g_peakBytes{0};
std::atomic<uint64_t> g_droppedThreads{0}, g_orphanDrops{0}, g_activityDropped{0};
std::atomic<uint64_t> g_corr{0};
std::atomic<uint32_t> g_stringId{0};
std::atomic<uint32_t> g_cuptiState{0};
std::atomic<uint32_t> g_gpuTiming{0};
std::atomic<bool> g_fileLock{false};
std::atomic<bool> g_stopWriter{false};
std::mutex* g_startMutex = new std::mutex;  // never destroyed: used during exit
int g_fd = -1;
pthread_t g_writer;
bool g_writerRunning = false;
uint64_t g_ringBytes = 1 << 20;
uint64_t g_capBytes = 64ull << 20;
// On-disk cap (SL_MAX_LOG_MB, default 4096; 0 = none): past it, chunks are counted as dropped
// instead of written, so a tight loop cannot fill the disk. The trailer always fits.
uint64_t g_logCapBytes = slog::kDefaultLogCapMb << 20;
uint64_t g_logBytes = 0;        // chunks written so far (file lock held)
uint64_t g_fileBytes = 0;       // the file's size: header and whole chunks
uint32_t g_pyVersion = 0;
uint32_t g_writerTid = 0;
int g_lastModuleAdds = -1;
char g_outDir[slog::kMaxOutDirBytes + 1] = "streamlint-logs";
char g_path[sizeof g_outDir + 128];
// A setting the recorder cannot follow: said at the first CUDA call, and that process is not
// recorded (`streamlint run` checks both before it starts the program).
const char* g_badSetting = nullptr;
pid_t g_logPid = 0;  // the process that owns g_fd (a vfork child shares our memory, not our log)
// The "no ring" state handed to threads past the memory cap: every reserve fails and counts.
ThreadState g_noRing;

uint32_t gettidNow() { return uint32_t(syscall(SYS_gettid)); }

// Spin lock usable from signal handlers; gives up after ~1 s rather than hang a dying process.
bool lockFile(bool patient) {
  for (int i = 0; i < (patient ? 1000000 : 200000); ++i) {
    bool expected = false;
    if (g_fileLock.compare_exchange_weak(expected, true, std::memory_order_acquire)) return true;
    if (i > 100) {
      timespec t{0, 1000};
      nanosleep(&t, nullptr);
    }
  }
  return false;
}
void unlockFile() { g_fileLock.store(false, std::memory_order_release); }

// ---- the log's descriptor ------------------------------------------------------------------
// Programs close descriptors they did not open (daemons, closefrom before exec) and the next
// open() reuses the number: writing to a number we once had wrote our chunks into the user's
// file. So the descriptor is moved high, the file's identity is kept, and before each write the
// descriptor is checked to still be that file; if it is not, the log is reopened by its path
// (the same file again, checked the same way) or recording stops. A number that is no longer
// ours is never written to nor closed.
dev_t g_logDev = 0;
ino_t g_logIno = 0;

// Above what programs open themselves: half the descriptor limit, at most 1024.
int moveHigh(int fd) {
  rlimit lim{};
  long base = getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY ? long(lim.rlim_cur / 2) : 1024;
  if (base > 1024) base = 1024;
  if (base <= fd) return fd;
  int high = fcntl(fd, F_DUPFD_CLOEXEC, int(base));
  if (high < 0) return fd;  // no free number up there: stay where we are, still checked
  close(fd);
  return high;
}

bool isLogFile(int fd) {
  struct stat st{};
  return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == g_logDev && st.st_ino == g_logIno;
}

// True when g_fd is (again) the log. Caller holds the file lock (or is the only thread left).
bool logFdIsOurs() {
  if (isLogFile(g_fd)) return true;
  int fd = open(g_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0 && isLogFile(fd)) {
    g_fd = moveHigh(fd);
    return true;
  }
  if (fd >= 0) close(fd);
  g_fd = -1;  // someone else's now, or gone: written to no more
  errno = EBADF;
  return false;
}

bool writeAll(const iovec* iov, int n) {
  if (!logFdIsOurs()) return false;
  iovec local[4];
  memcpy(local, iov, sizeof(iovec) * n);
  iovec* v = local;
  while (n > 0) {
    ssize_t w = writev(g_fd, v, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;  // disk full etc.: losing the log must not hurt the program
    }
    while (n > 0 && size_t(w) >= v->iov_len) { w -= v->iov_len; ++v; --n; }
    if (n > 0) { v->iov_base = static_cast<char*>(v->iov_base) + w; v->iov_len -= w; }
  }
  return true;
}

// CUDA call records in a chunk's two pieces (a record may straddle them), by walking the record
// headers: what a capped chunk loses, counted like a full ring's drops.
uint64_t countApiRecords(const void* a, size_t na, const void* b, size_t nb) {
  uint64_t n = 0;
  for (size_t off = 0; off + sizeof(slog::RecHeader) <= na + nb;) {
    slog::RecHeader h;
    for (size_t k = 0; k < sizeof h; ++k)
      reinterpret_cast<char*>(&h)[k] = off + k < na ? static_cast<const char*>(a)[off + k]
                                                    : static_cast<const char*>(b)[off + k - na];
    if (h.bytes < sizeof h) break;
    n += h.type == slog::RecType::Api;
    off += h.bytes;
  }
  return n;
}

// A chunk the log could not take: its CUDA call records count as dropped, its bytes as lost.
struct Losses { uint64_t chunks = 0, records = 0, bytes = 0; };
Losses g_capped, g_unwritten;
int g_writeErrno = 0;  // the first failed write's errno; nothing is written after it but the trailer

void countLost(Losses& l, const void* a, size_t na, const void* b, size_t nb) {
  ++l.chunks;
  l.records += countApiRecords(a, na, b, nb);
  l.bytes += sizeof(slog::ChunkHeader) + na + nb;
}

// One chunk from up to two pieces (a ring's wrapped range). Caller holds the file lock. A failed
// write (disk full, descriptor taken) is cut back to the last whole chunk, so the log stays
// readable, and ends the writing: later chunks are counted, the trailer is still tried.
void writeChunk(uint32_t tid, const void* a, size_t na, const void* b, size_t nb, bool always = false) {
  if (na + nb == 0) return;
  const uint64_t bytes = sizeof(slog::ChunkHeader) + na + nb;
  if (!always && g_writeErrno) return countLost(g_unwritten, a, na, b, nb);
  if (!always && g_logCapBytes && g_logBytes + bytes > g_logCapBytes) return countLost(g_capped, a, na, b, nb);
  slog::ChunkHeader ch{slog::kChunkMagic, uint32_t(na + nb), 0, tid};
  ch.checksum = slog::fnv1a32(b, nb, slog::fnv1a32(a, na));
  iovec v[3] = {{&ch, sizeof ch}, {const_cast<void*>(a), na}, {const_cast<void*>(b), nb}};
  if (writeAll(v, nb ? 3 : 2)) {
    g_logBytes += bytes;
    g_fileBytes += bytes;
    return;
  }
  if (!g_writeErrno) g_writeErrno = errno ? errno : EIO;
  if (g_fd >= 0 && ftruncate(g_fd, off_t(g_fileBytes)) == 0) lseek(g_fd, off_t(g_fileBytes), SEEK_SET);
  if (!always) countLost(g_unwritten, a, na, b, nb);
}

// ---- TSC -> CLOCK_MONOTONIC (hook times; see hookNow) ------------------------------------------
// Pairs (tsc, mono) are taken by whoever drains, under the file lock. A record is converted from
// the latest pair with the slope over the last 10-20 s, so NTP slewing of CLOCK_MONOTONIC is
// followed and a record (drained within milliseconds of its call) is off by well under 1 us.
struct TscPair { uint64_t tsc = 0, mono = 0; };
struct TscCalib {
  TscPair start, base, mid, last;
  double nsPerTick = 0;
} g_calib;

TscPair tscPair() {
  TscPair best;
  uint64_t bestSpan = ~0ull;
  for (int i = 0; i < 3; ++i) {  // the tightest bracket of three
    uint64_t a = __rdtsc();
    uint64_t m = nowNs();
    uint64_t b = __rdtsc();
    if (b - a < bestSpan) { bestSpan = b - a; best = {a + (b - a) / 2, m}; }
  }
  return best;
}

// Caller holds the file lock (or is the only thread left).
void calibrateLocked() {
  TscPair now = tscPair();
  TscCalib& c = g_calib;
  if (c.start.tsc == 0) { c.start = c.base = c.mid = c.last = now; return; }
  if (now.tsc - c.base.tsc < 1000 && c.nsPerTick == 0) {  // too close to the first pair
    timespec t{0, 200 * 1000};
    nanosleep(&t, nullptr);
    now = tscPair();
  }
  if (now.mono - c.mid.mono > 10ull * 1000 * 1000 * 1000) { c.base = c.mid; c.mid = now; }
  if (now.tsc > c.base.tsc && now.mono > c.base.mono)
    c.nsPerTick = double(now.mono - c.base.mono) / double(now.tsc - c.base.tsc);
  c.last = now;
}

inline uint64_t tscToMono(uint64_t tsc) {
  const TscCalib& c = g_calib;
  return uint64_t(int64_t(c.last.mono) + int64_t(double(int64_t(tsc - c.last.tsc)) * c.nsPerTick));
}

// Converts the TSC-stamped API records among [p, p + n) in place (whole records only).
void convertTimes(char* p, uint64_t n) {
  for (uint64_t off = 0; off + sizeof(slog::RecHeader) <= n;) {
    auto* h = reinterpret_cast<slog::RecHeader*>(p + off);
    if (h->bytes < sizeof(slog::RecHeader) || off + h->bytes > n) return;  // never happens
    if (h->type == slog::RecType::Api && h->bytes >= sizeof(slog::ApiRecord)) {
      auto* r = reinterpret_cast<slog::ApiRecord*>(h);
      if (r->flags & kTscTimes) {
        r->tEnter = tscToMono(r->tEnter);
        r->tExit = tscToMono(r->tExit);
        r->flags = uint8_t(r->flags & ~kTscTimes);
      }
    }
    off += h->bytes;
  }
}

// Moves one ring's committed records to the file. Caller holds the file lock.
uint64_t drainOne(ThreadState* ts) {
  uint64_t head = ts->head.load(std::memory_order_acquire);
  uint64_t tail = ts->tail.load(std::memory_order_relaxed);
  if (head > tail) {
    // One lap of the ring at most, so a chunk stays far below 4 GiB.
    uint64_t off = tail & (ts->ringBytes - 1);
    uint64_t n = head - tail;
    uint64_t first = n < ts->ringBytes - off ? n : ts->ringBytes - off;
    // [tail, head) is ours until tail moves: convert hook times there, before they are written.
    calibrateLocked();
    convertTimes(ts->ring + off, first);
    convertTimes(ts->ring, n - first);
    writeChunk(ts->tid, ts->ring + off, first, ts->ring, n - first);
    tail = head;
    ts->tail.store(tail, std::memory_order_release);
  }
  return tail;
}

// Moves every committed record of every ring to the file. Caller holds the file lock.
void drainLocked() {
  for (ThreadState* ts = g_threads.load(std::memory_order_acquire); ts; ts = ts->next) {
    if (ts->free.load(std::memory_order_acquire)) continue;
    uint64_t tail = drainOne(ts);
    if (ts->exited.load(std::memory_order_acquire) && ts->head.load(std::memory_order_acquire) == tail) {
      ts->exited.store(false, std::memory_order_relaxed);
      ts->free.store(true, std::memory_order_release);
    }
  }
}

struct ModuleScan {
  char buf[16384];
  size_t used = 0;
};
int moduleCallback(dl_phdr_info* info, size_t, void* p) {
  auto* scan = static_cast<ModuleScan*>(p);
  uint64_t lo = ~0ull, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
      lo = std::min<uint64_t>(lo, info->dlpi_addr + ph.p_vaddr);
      hi = std::max<uint64_t>(hi, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
    }
  }
  if (hi == 0) return 0;
  char exe[1024];
  const char* path = info->dlpi_name;
  if (!path || !*path) {  // the main program
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    path = exe;
  }
  if (strncmp(path, "linux-vdso", 10) == 0) return 0;
  size_t len = strlen(path);
  size_t bytes = slog::align8(sizeof(slog::ModuleRecord) + len);
  if (scan->used + bytes > sizeof scan->buf) {
    writeChunk(g_writerTid, scan->buf, scan->used, nullptr, 0);
    scan->used = 0;
  }
  auto* r = reinterpret_cast<slog::ModuleRecord*>(scan->buf + scan->used);
  memset(r, 0, bytes);
  r->h = {slog::RecType::Module, uint16_t(bytes)};
  r->pathLen = uint32_t(len);
  r->base = info->dlpi_addr;
  r->lo = lo;
  r->hi = hi;
  memcpy(r + 1, path, len);
  scan->used += bytes;
  return 0;
}
int addsCallback(dl_phdr_info* info, size_t, void* p) {
  *static_cast<int*>(p) = int(info->dlpi_adds);
  return 1;
}
// Writes the module list when libraries were loaded since last time. Caller holds the file lock.
void modulesLocked() {
  int adds = 0;
  dl_iterate_phdr(addsCallback, &adds);
  if (adds == g_lastModuleAdds) return;
  g_lastModuleAdds = adds;
  static ModuleScan scan;  // writer/exit only, under the file lock
  scan.used = 0;
  dl_iterate_phdr(moduleCallback, &scan);
  writeChunk(g_writerTid, scan.buf, scan.used, nullptr, 0);
}

void* writerMain(void*) {
  g_writerTid = gettidNow();
  uint64_t lastModules = 0;
  while (!g_stopWriter.load(std::memory_order_acquire)) {
    timespec t{0, 2 * 1000 * 1000};  // 2 ms: a 1 MiB ring holds >100 ms of launch-bound work
    nanosleep(&t, nullptr);
    if (!lockFile(true)) continue;
    drainLocked();
    uint64_t now = nowNs();
    if (now - lastModules > 500ull * 1000 * 1000) {  // new libraries (dlopen) at most 2x/s
      modulesLocked();
      lastModules = now;
    }
    unlockFile();
  }
  return nullptr;
}

void startWriter() {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);  // signals go to the program's threads, never ours
  g_stopWriter.store(false);
  g_writerRunning = pthread_create(&g_writer, nullptr, writerMain, nullptr) == 0;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (g_writerRunning) pthread_setname_np(g_writer, "streamlint-wr");
}

void writeTrailerLocked() {
  slog::TrailerRecord t{};
  t.h = {slog::RecType::Trailer, sizeof t};
  uint64_t dropped = g_orphanDrops.load() + g_noRing.dropped.load();
  uint64_t records = 0;
  for (ThreadState* ts = g_threads.load(); ts; ts = ts->next) {
    dropped += ts->dropped.load();
    records += ts->records.load();
  }
  const uint64_t notWritten = g_capped.records + g_unwritten.records;
  t.records = records > notWritten ? records - notWritten : 0;
  t.dropped = dropped + notWritten;
  t.cappedChunks = uint32_t(g_capped.chunks > UINT32_MAX ? UINT32_MAX : g_capped.chunks);
  t.cappedBytes = g_capped.bytes;
  t.cappedRecords = g_capped.records;
  t.unwrittenRecords = g_unwritten.records;
  t.unwrittenBytes = g_unwritten.bytes;
  t.unwrittenChunks = uint32_t(g_unwritten.chunks > UINT32_MAX ? UINT32_MAX : g_unwritten.chunks);
  t.writeErrno = uint32_t(g_writeErrno);
  t.droppedThreads = g_droppedThreads.load();
  t.peakBytes = g_peakBytes.load();
  t.capBytes = g_capBytes;
  t.activityDropped = g_activityDropped.load();
  t.cuptiState = g_cuptiState.load();
  t.gpuTiming = g_gpuTiming.load();
  writeChunk(g_writerTid ? g_writerTid : gettidNow(), &t, sizeof t, nullptr, 0, /*always=*/true);
}

// ---- signals --------------------------------------------------------------------------------
// A signal whose action is still the default kills the process without atexit: for those only,
// and only once recording has started (the first CUDA call), a handler drains the rings, writes
// the trailer and re-raises with the default action, so the process dies with the same status.
// Never earlier: CPython reads the dispositions at start-up and installs its KeyboardInterrupt
// handler only where SIGINT is still SIG_DFL (a handler installed from our constructor cost it
// default_int_handler, and multiprocessing's forkserver children died restoring a handler that
// signal.getsignal reported as None). A signal the program handles or ignores is left alone: its
// handler decides, and the program's exit paths (exit, _exit, Py_FinalizeEx) flush.
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};

void onFatalSignal(int sig) {
  int savedErrno = errno;
  if (g_state.load() == State::On && g_fd >= 0 && lockFile(false)) {
    drainLocked();  // only ring reads and write(2): async-signal-safe in practice
    writeTrailerLocked();
    unlockFile();
  }
  errno = savedErrno;
  signal(sig, SIG_DFL);  // re-delivered when this handler returns: the program dies as before
  raise(sig);
}

// Called once recording is on. A forked child inherits the handlers (and finds them installed).
void installFatalSignalHandlers() {
  for (int sig : kSignals) {
    struct sigaction cur{};
    if (sigaction(sig, nullptr, &cur) != 0) continue;
    if ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL) continue;
    struct sigaction sa{};
    sa.sa_handler = onFatalSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
}

// CPython ends an unhandled KeyboardInterrupt by re-raising SIGINT with the default action after
// Py_FinalizeEx, before exit()'s atexit handlers. Py_FinalizeEx's own exit functions write the
// log so far and a trailer, without ending the recording: torch's exit-time calls (frees) still
// come, and a normal exit appends them and the final trailer (a reader keeps the last one).
void checkpointAtPythonExit() {
  if (g_state.load() != State::On || g_logPid != getpid() || !lockFile(true)) return;
  drainLocked();
  modulesLocked();
  writeTrailerLocked();
  unlockFile();
}

void checkpointAtPythonExitOnce() {
  static bool registered = false;
  if (registered) return;
  registered = true;
  if (auto atExit = reinterpret_cast<int (*)(void (*)())>(realDlsym(RTLD_DEFAULT, "Py_AtExit")))
    atExit(checkpointAtPythonExit);
}

// ---- process start / fork --------------------------------------------------------------------
uint64_t envBytes(const char* name, uint64_t def, uint64_t unit) {
  const char* v = getenv(name);
  if (!v || !*v) return def;
  char* end;
  unsigned long long n = strtoull(v, &end, 10);
  return n ? n * unit : def;
}

// The TSC serves as the hook clock only when it is invariant (CPUID 0x80000007 EDX bit 8: constant
// rate, runs in every C-state), so that ticks map linearly to CLOCK_MONOTONIC, and when the
// kernel keeps time with it (clock source tsc, or kvm-clock, which scales the host's TSC): a
// kernel that switched away from the TSC found it unstable or unsynchronized across CPUs.
bool tscUsable() {
  unsigned a, b, c, d;
  __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000000u), "c"(0));
  if (a < 0x80000007u) return false;
  __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000007u), "c"(0));
  if (!((d >> 8) & 1)) return false;
  char src[32] = {0};
  int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = read(fd, src, sizeof src - 1);
  close(fd);
  if (n <= 0) return false;
  return strncmp(src, "tsc\n", 4) == 0 || strncmp(src, "kvm-clock\n", 10) == 0;
}

void readConfig() {
  const char* clk = getenv("SL_CLOCK");
  g_tscClock = clk && strcmp(clk, "tsc") == 0 ? true
               : clk && strcmp(clk, "mono") == 0 ? false
                                                 : tscUsable();
  if (const char* d = getenv("SL_OUT_DIR"); d && *d) {
    if (strlen(d) <= slog::kMaxOutDirBytes) snprintf(g_outDir, sizeof g_outDir, "%s", d);
    else g_badSetting = "SL_OUT_DIR is too long";  // never cut: the log would land elsewhere
  }
  g_capBytes = envBytes("SL_MAX_MB", 64ull << 20, 1ull << 20);
  if (const char* v = getenv("SL_MAX_LOG_MB"); v && *v && !slog::parseLogCapMb(v, g_logCapBytes))
    g_badSetting = "SL_MAX_LOG_MB is not a whole number of MB (0: no cap)";
  uint64_t ring = envBytes("SL_RING_KB", 1024ull << 10, 1ull << 10);
  g_ringBytes = 4096;
  while (g_ringBytes < ring) g_ringBytes <<= 1;  // power of two: masks instead of divisions
  if (const char* v = Py_VersionPtr()) memcpy(&g_pyVersion, v, 4);
  sanitizeConfig();
}

void mkdirs(const char* dir) {
  char tmp[sizeof g_outDir];
  snprintf(tmp, sizeof tmp, "%s", dir);
  for (char* p = tmp + 1; *p; ++p)
    if (*p == '/') { *p = 0; mkdir(tmp, 0777); *p = '/'; }
  mkdir(tmp, 0777);
}

// A new file, never an existing one nor through a symlink (a shared directory's planted link
// must not truncate its target): <host>-<pid>.slog, or <host>-<pid>.N.slog when a process of
// an earlier run had our pid (containers reuse them).
int createLog(const char* host) {
  int fd = -1;
  for (int n = 0; n < 100 && fd < 0; ++n) {
    if (n == 0) snprintf(g_path, sizeof g_path, "%s/%s-%d.slog", g_outDir, host, int(getpid()));
    else snprintf(g_path, sizeof g_path, "%s/%s-%d.%d.slog", g_outDir, host, int(getpid()), n);
    fd = open(g_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) break;
  }
  struct stat st{};
  if (fd < 0 || fstat(fd, &st) != 0) return -1;
  g_logDev = st.st_dev;
  g_logIno = st.st_ino;
  return moveHigh(fd);
}

bool openLog() {
  if (g_badSetting) {
    fprintf(stderr, "streamlint: %s; this process runs unrecorded\n", g_badSetting);
    return false;
  }
  char host[64] = {0};
  gethostname(host, sizeof host - 1);
  mkdirs(g_outDir);
  g_fd = createLog(host);
  g_logBytes = 0;  // a new file (a forked child's too): its own cap
  g_capped = g_unwritten = {};
  g_writeErrno = 0;
  g_logPid = getpid();
  if (g_fd < 0) {
    fprintf(stderr, "streamlint: cannot write the runtime log %s: %s; this process runs unrecorded\n",
            g_path, strerror(errno));
    return false;
  }
  slog::FileHeader h{};
  memcpy(h.magic, slog::kMagic, 8);
  h.version = slog::kVersion;
  h.headerBytes = sizeof h;
  h.pid = uint64_t(getpid());
  h.ppid = uint64_t(getppid());
  launch::fillLaunch(h);  // rank, local rank, world size, launcher (LaunchEnv.h)
  timespec rt;
  clock_gettime(CLOCK_REALTIME, &rt);
  h.startMonoNs = nowNs();
  h.startRealtimeNs = uint64_t(rt.tv_sec) * 1000000000ull + uint64_t(rt.tv_nsec);
  h.pythonVersion = g_pyVersion;
  memcpy(h.host, host, sizeof host);
  ssize_t n = readlink("/proc/self/exe", h.exe, sizeof h.exe - 1);
  if (n < 0) h.exe[0] = 0;
  iovec v{&h, sizeof h};
  if (!writeAll(&v, 1)) {
    fprintf(stderr, "streamlint: cannot write the runtime log %s: %s; this process runs unrecorded\n",
            g_path, strerror(errno));
    close(g_fd);
    g_fd = -1;
    unlink(g_path);
    return false;
  }
  g_fileBytes = sizeof h;
  return true;
}

void atforkChild() {
  // Only this thread survives. Forget the parent's rings (their unwritten records are the
  // parent's to write), its writer and its file; reset locks another thread may have held.
  g_generation.fetch_add(1);
  g_threads.store(nullptr);
  g_ringBytesHeld.store(0);
  g_fileLock.store(false);
  new (g_startMutex) std::mutex;
  if (isLogFile(g_fd)) close(g_fd);
  g_fd = -1;
  g_writerRunning = false;
  g_lastModuleAdds = -1;
  g_noRing.dropped.store(0);
  g_orphanDrops.store(0);
  g_droppedThreads.store(0);
  g_peakBytes.store(0);
  State s = g_state.load();
  if (s == State::On) g_state.store(State::Idle);  // the child starts its own log lazily
  t_state = nullptr;
  windowsAfterFork();
}

pthread_key_t g_exitKey;
// A thread that ends writes out its own ring and frees it at once: short-lived threads (thread
// pools, DataLoader pin-memory threads) would otherwise hold rings until the writer's next pass
// and push new threads past the memory cap.
void onThreadExit(void* p) {
  auto* ts = static_cast<ThreadState*>(p);
  if (!ts || ts == &g_noRing || ts->generation != g_generation.load()) return;
  // A CUDA call from a later TLS destructor claims a fresh ring instead of writing into this one.
  t_state = nullptr;
  if (g_state.load() == State::On && g_fd >= 0 && lockFile(true)) {
    drainOne(ts);
    ts->free.store(true, std::memory_order_release);
    unlockFile();
    return;
  }
  ts->exited.store(true);  // the writer recycles it once drained
}

void atExit() { flushAndClose(); }

// The trailer counts what a failed write cost, but a full disk may not take the trailer either:
// the process says it on stderr too, once, at exit.
void sayWhatWasNotWritten() {
  if (!g_writeErrno) return;
  fprintf(stderr, "streamlint: %s: %s%s; %llu CUDA call records (%llu bytes) after it were not written\n", g_path,
          g_writeErrno == EBADF ? "the program closed the log's descriptor" : "writing the log failed: ",
          g_writeErrno == EBADF ? "" : strerror(g_writeErrno), (unsigned long long)g_unwritten.records,
          (unsigned long long)g_unwritten.bytes);
}

}  // namespace

bool recordingEnabled() { return g_state.load(std::memory_order_relaxed) != State::Off; }
bool recordingOn() { return g_state.load(std::memory_order_acquire) == State::On; }
uint32_t pythonVersion() { return g_pyVersion; }
uint64_t nextCorrelation() { return g_corr.fetch_add(1, std::memory_order_relaxed) + 1; }
uint32_t nextStringId() { return g_stringId.fetch_add(1, std::memory_order_relaxed) + 1; }
void setCuptiState(slog::CuptiState s) { g_cuptiState.store(uint32_t(s)); }
void setGpuTiming(slog::GpuTiming t) { g_gpuTiming.store(uint32_t(t)); }
void addActivityDropped(uint64_t n) { g_activityDropped.fetch_add(n); }
void noteBytes(int64_t d) {
  uint64_t now = g_otherBytes.fetch_add(uint64_t(d)) + uint64_t(d) + g_ringBytesHeld.load();
  uint64_t peak = g_peakBytes.load();
  while (now > peak && !g_peakBytes.compare_exchange_weak(peak, now)) {}
}
bool underCap(uint64_t extra) {
  return g_ringBytesHeld.load() + g_otherBytes.load() + extra <= g_capBytes;
}

void ensureStarted() {
  if (g_state.load(std::memory_order_acquire) != State::Idle) return;
  std::lock_guard<std::mutex> lock(*g_startMutex);
  if (g_state.load() != State::Idle) return;
  if (!openLog()) {
    g_state.store(State::Off);
    return;
  }
  calibrateLocked();  // the first (tsc, mono) pair, before any hook stamps a record
  g_state.store(State::On, std::memory_order_release);
  installFatalSignalHandlers();
  checkpointAtPythonExitOnce();
  ++t_depth;  // the writer thread is ours: pthread_create's wrapper (ThreadStarts.cpp) passes it through
  startWriter();
  --t_depth;
}

ThreadState* threadStateSlow() {
  ensureStarted();
  if (g_state.load(std::memory_order_acquire) != State::On) return nullptr;
  uint64_t gen = g_generation.load();
  // Reuse the ring of a thread that ended (DataLoader threads come and go).
  ThreadState* ts = nullptr;
  for (ThreadState* p = g_threads.load(); p; p = p->next) {
    bool expected = true;
    if (p->free.load() && p->free.compare_exchange_strong(expected, false)) { ts = p; break; }
  }
  if (!ts) {
    uint64_t held = g_ringBytesHeld.load();
    if (held + g_otherBytes.load() + g_ringBytes + sizeof(ThreadState) > g_capBytes) {
      g_droppedThreads.fetch_add(1);
      g_noRing.generation = gen;
      t_state = &g_noRing;
      return &g_noRing;
    }
    void* mem = mmap(nullptr, g_ringBytes + sizeof(ThreadState), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return nullptr;
    ts = new (static_cast<char*>(mem) + g_ringBytes) ThreadState;
    ts->ring = static_cast<char*>(mem);
    ts->ringBytes = g_ringBytes;
    g_ringBytesHeld.fetch_add(g_ringBytes + sizeof(ThreadState));
    noteBytes(0);
    ThreadState* head = g_threads.load();
    do { ts->next = head; } while (!g_threads.compare_exchange_weak(head, ts));
  }
  ts->codeCache.clear();
  ts->nameCache.clear();
  ts->stackCache.clear();
  ts->stubCache.clear();
  ts->scanCache.clear();
  ts->btCache.clear();
  ts->stackLo = ts->stackTop = 0;
  ts->scans = 0;
  ts->userSeen = false;
  ts->tid = gettidNow();
  ts->generation = gen;
  t_state = ts;
  pthread_setspecific(g_exitKey, ts);
  recordThreadStart(ts);  // the ring's first record: the thread's name and who started it
  return ts;
}

void writeDirect(const void* records, size_t bytes) {
  if (g_fd < 0) return;  // also while finishing: CUPTI's last buffers arrive then
  if (!lockFile(true)) return;
  writeChunk(gettidNow(), records, bytes, nullptr, 0);
  unlockFile();
}

void notice(const char* key, const char* fmt, ...) {
  // One line per distinct key for the life of the process.
  static std::atomic<uint64_t> seen[64];
  uint64_t h = slog::fnv1a32(key, strlen(key));
  for (auto& s : seen) {
    uint64_t cur = s.load();
    if (cur == h) return;
    if (cur == 0 && s.compare_exchange_strong(cur, h)) break;
    if (cur == h) return;
  }
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  size_t len = std::min<size_t>(size_t(n), sizeof text - 1);
  fprintf(stderr, "streamlint: %s\n", text);
  char buf[sizeof(slog::RecHeader) + sizeof text + 8] = {};
  size_t bytes = slog::align8(sizeof(slog::RecHeader) + 4 + len);
  auto* rh = reinterpret_cast<slog::RecHeader*>(buf);
  *rh = {slog::RecType::Message, uint16_t(bytes)};
  uint32_t len32 = uint32_t(len);
  memcpy(buf + sizeof *rh, &len32, 4);
  memcpy(buf + sizeof *rh + 4, text, len);
  writeDirect(buf, bytes);
}

void flushAndClose() {
  State expected = State::On;
  if (!g_state.compare_exchange_strong(expected, State::Finished)) return;
  extern void cuptiFinish();
  cuptiFinish();  // CUPTI hands over its last buffers before the final drain
  if (g_writerRunning) {
    g_stopWriter.store(true);
    pthread_join(g_writer, nullptr);
    g_writerRunning = false;
  }
  if (lockFile(true)) {
    drainLocked();
    modulesLocked();
    writeTrailerLocked();
    unlockFile();
  }
  sayWhatWasNotWritten();
  if (isLogFile(g_fd)) close(g_fd);  // a number the program took is the program's
  g_fd = -1;
}

// _exit skips atexit: Python's os._exit (multiprocessing workers end that way) would lose the
// last records. Flush first, but only in the process that owns the log: a vfork child (posix_spawn,
// subprocess on exec failure) shares our memory and must not touch the writer.
[[noreturn]] void exitWithFlush(const char* name, int status) {
  if (g_logPid == getpid()) flushAndClose();
  auto real = reinterpret_cast<void (*)(int)>(realDlsym(RTLD_NEXT, name));
  if (real) real(status);
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

__attribute__((constructor(101))) void recorderInit() {
  initRealDlsym();
  readConfig();
  captureUserText();  // the program's own modules, all mapped by now
  if (const char* off = getenv("SL_DISABLE"); off && *off == '1') g_state.store(State::Off);
  pthread_key_create(&g_exitKey, onThreadExit);
  pthread_atfork(nullptr, nullptr, atforkChild);
  atexit(atExit);
}
__attribute__((destructor)) void recorderFini() { flushAndClose(); }

}  // namespace sl::ip

extern "C" __attribute__((visibility("default"), noreturn)) void _exit(int status) {
  sl::ip::exitWithFlush("_exit", status);
}
extern "C" __attribute__((visibility("default"), noreturn)) void _Exit(int status) {
  sl::ip::exitWithFlush("_Exit", status);
}
