// Synthetic ProcessTimelines for the report writers' tests: small enough to reason about, with
// every kind of track (default and side stream, Python and non-Python thread, kernel, copy, set,
// blocking and non-blocking calls) and, on request, many ops or hostile kernel names.
#pragma once
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/Finding.h"
#include "runtime/Timeline.h"

namespace sl::runtime::test {

inline constexpr const char* kHostileName = "</script><script>alert(1)</script>";
// Sets an attribute if it ever runs: the headless test reads the DOM for it.
inline constexpr const char* kHostileMarker =
    "<img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">"
    "</script><script>document.body.setAttribute('data-pwned','1')</script><!--";

// Times are ns from `base`. Locations: 0 train.py:10 (launch), 1 train.py:20 (sync),
// 2 libfoo.so (native, no line). Streams: device 0 id 7 (legacy default), id 13 (handle 0x5555).
inline ProcessTimeline sampleTimeline(uint64_t pid = 1234, int rank = 0, size_t extraKernels = 0,
                                      const std::string& oddKernelName = "",
                                      uint64_t base = 1000000000) {
  ProcessTimeline t;
  t.logPath = "/tmp/logs/streamlint-" + std::to_string(pid) + ".slog";
  t.host = "node1";
  t.exe = "/usr/bin/python3.12";
  t.pid = pid;
  t.rank = rank;
  t.gpuTiming = true;
  t.locations = {{"/home/u/proj/train.py", 10, "step", true},
                 {"/home/u/proj/train.py", 20, "step", true},
                 {"/usr/lib/libfoo.so", 0, "", false}};
  auto call = [&](uint32_t tid, slog::Api api, uint64_t s, uint64_t e, uint64_t stream, int loc,
                  bool blocking, int attributed = -1) {
    HostCall c;
    c.tid = tid; c.api = api; c.enterNs = base + s; c.exitNs = base + e; c.stream = stream;
    c.loc = loc; c.attributedLoc = attributed; c.blocking = blocking;
    t.calls.push_back(c);
    return int(t.calls.size() - 1);
  };
  auto op = [&](slog::ActivityKind k, uint32_t stream, uint64_t s, uint64_t e, std::string name,
                int callIdx, uint8_t copyKind = 0, uint64_t bytes = 0) {
    GpuOp o;
    o.kind = k; o.stream = stream; o.startNs = base + s; o.endNs = base + e; o.name = std::move(name);
    o.call = callIdx; o.copyKind = copyKind; o.bytes = bytes;
    t.ops.push_back(o);
  };
  int l1 = call(100, slog::Api::cudaLaunchKernel, 1000, 1500, 0, 0, false);
  int l2 = call(100, slog::Api::cudaLaunchKernel, 2000, 2600, 0x5555, 0, false);
  int cp = call(100, slog::Api::cudaMemcpyAsync, 2700, 2900, 0x5555, 0, false);
  int ms = call(200, slog::Api::cudaMemsetAsync, 3000, 3100, 0, -1, false, 0);  // autograd thread
  call(100, slog::Api::cudaStreamSynchronize, 4000, 9000, 0x5555, 1, true);
  call(200, slog::Api::cudaFree, 9500, 9800, 0, 2, true);
  op(slog::ActivityKind::Kernel, 7, 1234, 6000, "void at::native::foo<float>(float*, int)", l1);
  op(slog::ActivityKind::Kernel, 13, 2800, 7000,
     oddKernelName.empty() ? "ampere_sgemm_128x64_nn" : oddKernelName, l2);
  op(slog::ActivityKind::Memcpy, 13, 7100, 8000, "copy HtoD", cp, 1, 4096);
  op(slog::ActivityKind::Memset, 7, 6100, 6200, "memset", ms);
  // Many small kernels after the hand-written part, alternating streams, each with its launch.
  uint64_t at = 10000;
  for (size_t i = 0; i < extraKernels; ++i, at += 700) {
    uint32_t stream = i % 2 ? 13 : 7;
    int c = call(100, slog::Api::cudaLaunchKernel, at, at + 300, stream == 13 ? 0x5555 : 0, 0, false);
    op(slog::ActivityKind::Kernel, stream, at + 400, at + 400 + 500 + (i % 7) * 100,
       i % 3 ? "void at::native::vectorized_elementwise_kernel<4>" : "ampere_sgemm_64x32", c);
  }
  std::vector<GpuOp> sorted(t.ops.begin(), t.ops.end());
  std::sort(sorted.begin(), sorted.end(), [](const GpuOp& a, const GpuOp& b) { return a.startNs < b.startNs; });
  t.ops.clear();
  for (const auto& o : sorted) t.ops.push_back(o);
  StreamInfo s7, s13;
  s7.device = 0; s7.id = 7; s7.handle = 0; s7.handleKnown = true; s7.legacyDefault = true;
  s13.device = 0; s13.id = 13; s13.handle = 0x5555; s13.handleKnown = true;
  for (const auto& o : t.ops) {
    StreamInfo& s = o.stream == 7 ? s7 : s13;
    (o.kind == slog::ActivityKind::Kernel ? s.kernels : o.kind == slog::ActivityKind::Memcpy ? s.copies : s.sets)++;
  }
  t.streams = {s7, s13};
  t.pythonThreads = {100};
  t.beginNs = base;
  t.endNs = base + std::max<uint64_t>(9800, at + 1200);
  return t;
}

// Marks `t` as GPU-timed only in `windows` (ns from `base`, as in sampleTimeline): sampled GPU
// timing as the page and the trace draw it. Calls' gpuTimed flags follow the windows.
inline void sampleTiming(ProcessTimeline& t, const std::vector<std::pair<uint64_t, uint64_t>>& windows,
                         uint64_t base = 1000000000) {
  t.gpuTimingMode = slog::GpuTiming::Sampled;
  t.sampled = true;
  t.timedNs = 0;
  t.windows.clear();
  for (const auto& [b, e] : windows) {
    TimedWindow w;
    w.beginNs = base + b;
    w.endNs = base + e;
    w.closed = true;
    t.windows.push_back(w);
    t.timedNs += e - b;
  }
  t.calls.forEachUpdate([&](HostCall& c) { c.gpuTimed = windowContaining(t.windows, c.enterNs) >= 0; });
}

inline Finding finding(const std::string& rule, const std::string& path, uint32_t line,
                       const std::string& msg) {
  Finding f;
  f.ruleId = rule;
  f.path = path;
  f.loc = Loc{line, 1};
  f.message = msg;
  return f;
}

}  // namespace sl::runtime::test
