// ProcessLogs made in a test, as readLog would return them, and records written as a .slog file:
// for the GPU timing window logic (TimedWindows.h) and what the report says about it, without a
// GPU. Times are host CLOCK_MONOTONIC ns; the CUPTI clock is the host clock (ClockRecord 0 <-> 0).
#pragma once
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/LogReader.h"
#include "runtime/Symbolizer.h"
#include "runtime/Timeline.h"

namespace sl::runtime::test {

inline constexpr const char* kTrainPy = "/home/u/proj/train.py";
inline constexpr uint64_t kMs = 1000000;

inline slog::WindowRecord windowRecord(bool on, uint64_t tBefore, uint64_t tAfter,
                                       slog::WindowReason why = slog::WindowReason::Schedule) {
  slog::WindowRecord w{};
  w.h = {slog::RecType::Window, sizeof w};
  w.on = on;
  w.why = why;
  w.tBefore = tBefore;
  w.tAfter = tAfter;
  return w;
}

struct LogBuilder {
  ProcessLog log;
  uint32_t nextCorr = 1;

  LogBuilder() {
    log.path = "/tmp/logs/node1-77.slog";
    log.header.pid = 77;
    log.header.rank = -1;
    std::strcpy(log.header.host, "node1");
    std::strcpy(log.header.exe, "/usr/bin/python3.12");
    log.clocks.push_back(slog::ClockRecord{{slog::RecType::Clock, sizeof(slog::ClockRecord)}, 0, 0, 0});
    log.strings[1] = "kernelA";
  }

  // A call from train.py:`line` (a Python line: no symbolizer needed) on thread 100; line 0: a
  // call without a source line on thread 200 (like autograd's backward threads).
  size_t call(slog::Api api, uint64_t enterNs, uint64_t exitNs, uint32_t line, uint64_t stream = 0x5555) {
    if (line && !log.codes.count(line)) log.codes[line] = CodeDef{kTrainPy, "step", line, "", false};
    ApiCall c;
    c.rec = slog::ApiRecord{};  // a plain struct: zeroed, as the recorder writes unused fields
    c.rec.h = {slog::RecType::Api, sizeof(slog::ApiRecord)};
    c.rec.api = api;
    c.rec.flags = line ? slog::kHasPython : 0;
    c.rec.tEnter = enterNs;
    c.rec.tExit = exitNs;
    c.rec.pyCode = line;
    c.rec.stream = stream;
    c.rec.corr = nextCorr++;
    if (slog::apiClass(api) == slog::ApiClass::Launch) c.rec.nameId = 1;
    c.tid = line ? 100 : 200;
    log.calls.push_back(c);
    log.apiRecords++;
    return log.calls.size() - 1;
  }
  size_t launch(uint64_t enterNs, uint32_t line = 10, uint64_t stream = 0x5555) {
    return call(slog::Api::cudaLaunchKernel, enterNs, enterNs + 100, line, stream);
  }

  // A kernel of kernelA on CUPTI stream `stream`.
  void kernel(uint64_t startNs, uint64_t endNs, uint32_t stream = 13) {
    slog::ActivityRecord a{};
    a.h = {slog::RecType::Activity, sizeof a};
    a.kind = slog::ActivityKind::Kernel;
    a.start = startNs;
    a.end = endNs;
    a.correlationId = uint32_t(log.activities.size() + 1);
    a.streamId = stream;
    a.nameId = 1;
    log.activities.push_back(a);
    log.activityRecords++;
  }

  void window(bool on, uint64_t tBefore, uint64_t tAfter,
              slog::WindowReason why = slog::WindowReason::Schedule) {
    log.windows.push_back(windowRecord(on, tBefore, tAfter, why));
  }

  // The sampled tests' windows: [1 ms, 3 ms) and [50 ms, 51 ms), each switch taking 10 us.
  void twoWindows() {
    window(true, 1 * kMs, 1 * kMs + 10000);
    window(false, 3 * kMs - 10000, 3 * kMs);
    window(true, 50 * kMs, 50 * kMs + 10000);
    window(false, 51 * kMs - 10000, 51 * kMs);
  }

  void trailer(slog::GpuTiming mode) {
    slog::TrailerRecord t{};
    t.h = {slog::RecType::Trailer, sizeof t};
    t.cuptiState = uint32_t(slog::CuptiState::Active);
    t.gpuTiming = uint32_t(mode);
    log.trailer = t;
  }
};

// Two windows, [1 ms, 3 ms) and [50 ms, 51 ms); launches in both with their kernels, 200 launches
// of the same kernel in between that CUPTI did not see, and a sync at 100 ms ending the run.
struct TwoWindows {
  LogBuilder b;
  std::vector<size_t> timed1, untimed, timed2;
  TwoWindows() {
    b.twoWindows();
    for (uint64_t i = 0; i < 3; ++i) {
      timed1.push_back(b.launch(1 * kMs + 20000 + i * 1000));
      b.kernel(1 * kMs + 100000 + i * 10000, 1 * kMs + 105000 + i * 10000);
    }
    for (uint64_t i = 0; i < 200; ++i) untimed.push_back(b.launch(4 * kMs + i * 10000, 20));
    for (uint64_t i = 0; i < 2; ++i) {
      timed2.push_back(b.launch(50 * kMs + 20000 + i * 1000));
      b.kernel(50 * kMs + 100000 + i * 10000, 50 * kMs + 105000 + i * 10000);
    }
    b.call(slog::Api::cudaDeviceSynchronize, 100 * kMs, 101 * kMs, 30);
    b.trailer(slog::GpuTiming::Sampled);
  }
};

inline ProcessTimeline timelineOf(const ProcessLog& log) {
  Symbolizer sym;
  return buildTimeline(log, sym);
}

// A .slog file: the header, then one chunk per record list (thread `tid`), checksummed.
struct SlogFile {
  std::string bytes;
  SlogFile() {
    slog::FileHeader h{};
    std::memcpy(h.magic, slog::kMagic, 8);
    h.version = slog::kVersion;
    h.headerBytes = sizeof h;
    h.pid = 78;
    h.rank = -1;
    bytes.append(reinterpret_cast<const char*>(&h), sizeof h);
  }
  template <class... Rec>
  void chunk(uint32_t tid, const Rec&... recs) {
    std::string payload;
    (payload.append(reinterpret_cast<const char*>(&recs), sizeof recs), ...);
    slog::ChunkHeader c{slog::kChunkMagic, uint32_t(payload.size()),
                        slog::fnv1a32(payload.data(), payload.size()), tid};
    bytes.append(reinterpret_cast<const char*>(&c), sizeof c);
    bytes += payload;
  }
  void write(const std::string& path) const { std::ofstream(path, std::ios::binary) << bytes; }
};

}  // namespace sl::runtime::test
