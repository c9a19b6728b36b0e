// GPU timing windows (see GpuWindows.h) and the program's own switch, streamlint_recording().
#include "GpuWindows.h"

#include <cuda.h>
#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <mutex>
#include <new>

#include "Hooks.h"
#include "RealDlsym.h"
#include "streamlint/GpuTimingSpec.h"

namespace sl::ip {

std::atomic<uint64_t> g_windowDue{UINT64_MAX};
std::atomic<bool> g_paused{false};
std::atomic<uint8_t> g_skipParts{0};

namespace {

struct Schedule {
  slog::GpuTiming mode = slog::GpuTiming::Sampled;
  slog::GpuSample sample;
};

std::mutex g_mu;           // guards everything below; hooks only try it
Schedule g_sched;
bool g_configured = false;
bool g_on = false;         // our kinds are enabled
bool g_scheduling = false; // the schedule drives switches (sampled, not paused or overridden)
uint64_t g_offAtNs = 0;    // CLOCK_MONOTONIC: the open window ends
uint64_t g_onAtNs = 0;     // the next window begins (a pause does not move it)
double g_ticksPerNs = 1.0; // hook clock ticks per ns (1 unless the hook clock is the TSC)

void configure() {
  if (g_configured) return;
  g_configured = true;
  Schedule s;
  const char* mode = getenv("SL_GPU_TIMING");
  if (const char* v = getenv("SL_CUPTI"); v && *v == '0') s.mode = slog::GpuTiming::Off;
  else if (mode && *mode && !slog::parseGpuTiming(mode, s.mode))
    notice("gpu-timing", "SL_GPU_TIMING=%s is not one of sampled, always, off: using sampled", mode);
  if (const char* v = getenv("SL_GPU_SAMPLE"); v && *v && !slog::parseSample(v, s.sample))
    notice("gpu-sample", "SL_GPU_SAMPLE=%s is not ON/EVERY with 0 < ON < EVERY (e.g. 100ms/2s): "
           "using 100ms/2s", v);
  if (const char* v = getenv("SL_GPU_FIRST"); v && *v && !slog::parseDuration(v, s.sample.firstNs))
    notice("gpu-first", "SL_GPU_FIRST=%s is not a duration (e.g. 10s, 500ms): using 10s", v);
  if (s.sample.firstNs < s.sample.onNs) s.sample.firstNs = s.sample.onNs;
  g_sched = s;
}

void measureTicks() {
  if (!g_tscClock) return;
  uint64_t m0 = nowNs(), t0 = __rdtsc(), m1;
  do m1 = nowNs(); while (m1 - m0 < 200'000);  // once per process: 0.2 ms
  g_ticksPerNs = double(__rdtsc() - t0) / double(m1 - m0);
}

// Arms the hooks' test for the switch due at CLOCK_MONOTONIC `atNs`.
void arm(uint64_t atNs) {
  uint64_t now = nowNs();
  uint64_t ahead = atNs > now ? uint64_t(double(atNs - now) * g_ticksPerNs) : 0;
  g_windowDue.store(hookNow() + ahead, std::memory_order_relaxed);
}
void disarm() { g_windowDue.store(UINT64_MAX, std::memory_order_relaxed); }

// CUPTI may allocate when kinds are switched. While a CUDA graph is being captured in global mode
// (torch.cuda.graph's default) such a call from any thread is "potentially unsafe" and would
// invalidate the program's capture; in relaxed mode it is allowed. So the switching thread runs
// relaxed for the switch only, through the driver (libcuda is always a shared library).
class RelaxedCapture {
 public:
  RelaxedCapture() {
    static auto exchange = [] {
      void* libcuda = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
      return reinterpret_cast<CUresult (*)(CUstreamCaptureMode*)>(
          libcuda ? realDlsym(libcuda, "cuThreadExchangeStreamCaptureMode") : nullptr);
    }();
    exchange_ = exchange;
    if (exchange_ && exchange_(&mode_) != CUDA_SUCCESS) exchange_ = nullptr;
  }
  ~RelaxedCapture() {
    if (exchange_) exchange_(&mode_);
  }

 private:
  CUresult (*exchange_)(CUstreamCaptureMode*) = nullptr;
  CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
};

// Switches our kinds and logs it. Caller holds g_mu. At exit the kinds are left as they are:
// CUPTI calls from an atexit handler can run after CUDA's own teardown (disabling the kinds
// there crashed the process before it wrote its trailer); the record still closes the window.
bool switchTo(bool on, slog::WindowReason why) {
  if (on == g_on) return true;
  slog::WindowRecord w{};
  w.h = {slog::RecType::Window, sizeof w};
  w.on = on;
  w.why = why;
  ++t_depth;  // CUPTI's own CUDA calls are not the program's
  w.tBefore = nowNs();
  bool ok = true;
  if (why != slog::WindowReason::Exit) {
    RelaxedCapture relaxed;
    ok = cuptiSetKinds(on);
  }
  w.tAfter = nowNs();
  --t_depth;
  if (!ok && on) return false;
  g_on = on;
  writeDirect(&w, sizeof w);
  return true;
}

}  // namespace

slog::GpuTiming gpuTimingConfigured() {
  std::lock_guard<std::mutex> lock(g_mu);
  configure();
  return g_sched.mode;
}

void gpuTimingContinuous() {
  std::lock_guard<std::mutex> lock(g_mu);
  configure();
  if (g_sched.mode == slog::GpuTiming::Sampled) g_sched.mode = slog::GpuTiming::Continuous;
}

bool windowsStart() {
  std::lock_guard<std::mutex> lock(g_mu);
  configure();
  measureTicks();
  if (!switchTo(true, slog::WindowReason::Schedule)) return false;
  g_scheduling = g_sched.mode == slog::GpuTiming::Sampled;
  g_offAtNs = nowNs() + g_sched.sample.firstNs;
  g_onAtNs = g_offAtNs + (g_sched.sample.everyNs - g_sched.sample.onNs);
  if (g_scheduling) arm(g_offAtNs);
  return true;
}

void windowTick() {
  std::unique_lock<std::mutex> lock(g_mu, std::try_to_lock);
  if (!lock.owns_lock()) return;  // another thread is switching
  if (!g_scheduling || !cuptiOurs()) { disarm(); return; }
  uint64_t now = nowNs();
  if (g_on && now >= g_offAtNs) {
    switchTo(false, slog::WindowReason::Schedule);
  } else if (!g_on && now >= g_onAtNs) {
    if (switchTo(true, slog::WindowReason::Schedule))
      g_offAtNs = now + g_sched.sample.onNs;
    g_onAtNs = now + g_sched.sample.everyNs;  // a period after this one (or after a refusal)
  }
  arm(g_on ? g_offAtNs : g_onAtNs);  // (also when the tick estimate ran early)
}

void windowsStop(slog::WindowReason why) {
  // May run in a signal handler that interrupted a thread holding g_mu: try for a while, then go
  // on without the record (the report then treats the window as open until the log's end).
  std::unique_lock<std::mutex> lock(g_mu, std::defer_lock);
  for (int i = 0; i < 1000 && !lock.try_lock(); ++i) sched_yield();
  disarm();
  if (!lock.owns_lock()) return;
  g_scheduling = false;
  switchTo(false, why);
}

void windowsAfterFork() {
  // Only the forking thread survives; g_mu may have been held by another. CUDA (and CUPTI) cannot
  // be used in a fork child, so the child never switches: its log has host calls only.
  new (&g_mu) std::mutex;
  disarm();
  g_scheduling = false;
  g_on = false;
  cuptiForget();
}

}  // namespace sl::ip

// Lets a program (or a benchmark) record only the part it cares about, in process:
//   ctypes.CDLL(None).streamlint_recording(0)  pause: hooks pass through, GPU timing off
//   ...(1) resume, GPU timing as configured (SL_GPU_TIMING); ...(2) host calls only;
//   ...(3) host calls and continuous GPU timing, whatever SL_GPU_TIMING says.
// Flags added to 1-3 leave a part of each record out, so that a benchmark can tell what each
// part costs in one process (bench/sanitize/real: `--ab-arms`): 16 no Python line, 32 no native
// backtraces (the return address only), 64 no launch footprints (sanitize mode). The log then
// lacks what was left out: for measuring, not for recordings meant to be reported.
// Returns the previous mode; -1 when GPU timing was asked for and CUPTI cannot follow (not
// available, switched off, or a profiler owns it).
SL_EXPORT int streamlint_recording(int mode) {
  using namespace sl::ip;
  using sl::slog::GpuTiming;
  static int s_mode = 1;
  std::lock_guard<std::mutex> lock(g_mu);
  configure();
  int prev = s_mode;
  s_mode = mode;
  int base = mode & 15;
  g_skipParts.store(uint8_t((mode >> 4) & (kSkipPython | kSkipBacktrace | kSkipFootprint)),
                    std::memory_order_relaxed);
  g_paused.store(base == 0);
  bool gpu = base == 3 || (base == 1 && g_sched.mode != GpuTiming::Off);
  if (!cuptiOurs()) return gpu ? -1 : prev;
  g_scheduling = base == 1 && g_sched.mode == GpuTiming::Sampled;
  if (g_scheduling) {
    arm(g_on ? g_offAtNs : g_onAtNs);  // the schedule goes on where it was
    return prev;
  }
  disarm();
  return switchTo(gpu, sl::slog::WindowReason::Program) ? prev : -1;
}
