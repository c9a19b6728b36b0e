// When CUPTI records GPU activity. CUPTI's kernel tracing costs the launching thread about a
// microsecond per kernel (5-10 % of a launch-bound loop on the H200, bench/interposer/README.md),
// so by default it runs in windows: the first SL_GPU_FIRST (10 s) of CUDA work, then 100 ms of
// every 2 s (SL_GPU_SAMPLE=ON/EVERY). Host calls are recorded throughout. Each switch writes a
// WindowRecord, so the report knows which calls' GPU work it can see.
//
// Switches happen on a hooked call's own thread, before its real call: in a program that issues
// its work from one thread (the usual Python training loop) a window's edges are exact in call
// order. The hook's test is one relaxed load and a compare against the time it reads anyway.
#pragma once
#include <atomic>
#include <cstdint>

#include "streamlint/LogFormat.h"

namespace sl::ip {

// Hook-clock time (Recorder.h hookNow) of the next scheduled switch; UINT64_MAX when none.
extern std::atomic<uint64_t> g_windowDue;

void windowTick();                             // a hook passed g_windowDue
bool windowsStart();                           // CUPTI is ours: open the first window (false: refused)
void windowsStop(slog::WindowReason why);      // yield or exit: close the window, schedule nothing
void windowsAfterFork();                       // in a fork child: no switches (CUPTI is the parent's)
slog::GpuTiming gpuTimingConfigured();         // SL_GPU_TIMING (SL_CUPTI=0 means off)
void gpuTimingContinuous();                    // sampled becomes always (no hooks to switch)

// Cupti.cpp: switch our activity kinds on or off; false when CUPTI refused.
bool cuptiSetKinds(bool on);
bool cuptiOurs();  // registered, and no profiler has taken CUPTI since
void cuptiForget();  // a fork child: CUPTI state is the parent's, never touch it

}  // namespace sl::ip
