// Reads one .slog file (format: interposer/include/streamlint/LogFormat.h) into memory.
// Damage is not fatal: the reader keeps every record before the first bad chunk and lists what
// it could not read in `problems`, so `report` can say how far a log went.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/CollectiveRecords.h"
#include "streamlint/LogFormat.h"

namespace sl::runtime {

struct ProcessLog;

// One call as read. Its native return addresses live in ProcessLog::frames (most calls from
// Python have none: inline, they were 64 of each call's 160 bytes held).
struct ApiCall {
  slog::ApiRecord rec;
  uint32_t tid = 0;
  uint8_t nframes = 0;
  uint32_t framesAt = 0;  // index of the first in ProcessLog::frames
  uint64_t blockedNs() const { return rec.tExit > rec.tEnter ? rec.tExit - rec.tEnter : 0; }
  uint64_t frame(const ProcessLog& log, int i) const;
};

struct CodeDef {
  std::string file;
  std::string name;
  uint32_t firstLine = 0;
  std::string lineTable;  // CPython 3.11+ location table bytes
  bool insideTorch = false;
};

// A thread's name and who started it (slog::ThreadRecord; logs of older recorders have none).
struct ThreadStart {
  std::string name;        // "pt_autograd_0"; the starting thread's name when it never set one
  uint32_t parentTid = 0;  // 0 unknown
  uint32_t pyCode = 0, pyOffset = 0;  // the starting thread's user Python line (0: none)
};

struct Module {
  std::string path;
  uint64_t base = 0, lo = 0, hi = 0;
  mutable int8_t runtime = -1;  // isRuntimeModule(path), once asked (CallSite.cpp); -1 not yet
  mutable int8_t allocator = -1;  // the CUDA caching allocator's library (libc10_cuda.so), once asked
};

// Sanitize mode (SL904): a launch's parameter words that point into device memory.
struct LaunchFootprint {
  uint8_t flags = 0;  // slog::AccessFlags
  std::vector<uint64_t> words;
};
struct Gap {
  uint32_t tid = 0;
  uint64_t fromNs = 0, toNs = 0, dropped = 0;
};

struct ProcessLog {
  std::string path;
  slog::FileHeader header{};
  std::vector<ApiCall> calls;     // those ReadOptions::keep accepted
  std::vector<uint64_t> frames;   // the calls' native return addresses (ApiCall::framesAt)
  uint64_t apiRecords = 0;        // all API records read, kept or not
  uint64_t keptCalls = 0;         // those ReadOptions::keep accepted (held in `calls` or handed on)
  std::unordered_map<uint32_t, CodeDef> codes;
  std::unordered_map<uint32_t, std::string> strings;
  std::vector<Module> modules;  // distinct (path, base)
  std::vector<slog::ActivityRecord> activities;
  uint64_t activityRecords = 0;   // all GPU activity records read, kept or not
  std::vector<slog::ClockRecord> clocks;
  // GPU timing switched on and off (sampled timing), by tBefore. Empty in logs timed
  // continuously from the first CUDA call (all logs written before windows existed). A log cut
  // off inside a window ends with an `on`: Timeline treats it as timed until the log's end.
  std::vector<slog::WindowRecord> windows;
  std::vector<std::string> messages;  // what the recorder printed while running
  // Sanitize mode (`streamlint run --sanitize`): footprints by the launch's corr, windows of lost
  // records, the caching allocator's block trace (Python processes). `sanitize` is true when the
  // log holds any of them.
  bool sanitize = false;
  std::unordered_map<uint64_t, LaunchFootprint> footprints;
  std::vector<Gap> gaps;
  std::vector<slog::BlockRecord> blocks;
  // NCCL calls' communicator, rank, size and root/peer, by the call's corr (every mode).
  CollectiveRecords collectives;
  std::unordered_map<uint32_t, ThreadStart> threads;  // by tid
  std::optional<slog::TrailerRecord> trailer;
  std::vector<std::string> problems;  // truncation or damage, one line each

  const Module* moduleFor(uint64_t addr) const;

 private:
  // moduleFor's answers by address (direct-mapped): a long log asks about the same few return
  // addresses millions of times, and a process maps hundreds of modules. Emptied when
  // `modules` changes size.
  struct ModuleHit {
    uint64_t addr = 0;
    int64_t index = -2;  // -1 none, -2 empty slot
  };
  mutable std::vector<ModuleHit> moduleHits_;
  mutable size_t moduleHitsFor_ = 0;
};

inline uint64_t ApiCall::frame(const ProcessLog& log, int i) const { return log.frames[framesAt + size_t(i)]; }

struct ReadOptions {
  // Which API records to keep in memory (a 10-minute run holds ~10 million); null keeps all.
  bool (*keep)(const slog::ApiRecord&) = nullptr;
  bool keepActivities = true;  // false: only count them (ProcessLog::activityRecords)
  // Streaming (`report` on long logs): each kept call, and each GPU record, is handed to these
  // as it is read instead of being held in `calls` / `activities`. The call's native return
  // addresses are `frames` (c.nframes of them), valid during the call only; c.framesAt is 0.
  std::function<void(const ApiCall& c, const uint64_t* frames)> onCall;
  std::function<void(const slog::ActivityRecord&)> onActivity;
  // Only the calls and GPU records are wanted (a later pass over a log whose other records an
  // earlier pass read): the others are checked as always, so the read stops at the same damage,
  // but not held (a sanitize log's footprints would otherwise be held twice).
  bool callsAndActivitiesOnly = false;
};

// False (with `error` naming the file and the reason) when the file is unreadable, not a .slog,
// or of another format version. Partial logs return true with `problems` filled.
// The trailer that ends a log written by this build's recorder, read from the file's end only
// (`streamlint run` after the program: logs can be gigabytes); empty when the log has none.
// False when the file cannot be read.
// What a trailer says its log could not hold (the size cap, a failed write), one sentence each,
// naming `path`: `run` prints them after the program, `report` with its inputs.
std::vector<std::string> unwrittenParts(const std::string& path, const slog::TrailerRecord& t);

bool readTrailerAtEnd(const std::string& path, std::optional<slog::TrailerRecord>& trailer);

bool readLog(const std::string& path, ProcessLog& out, std::string& error,
             const ReadOptions& options = {});

// Line of the instruction at byte `offset` in a code object (CPython 3.11+ location table), or
// 0 when it has none.
uint32_t pythonLine(const CodeDef& code, uint32_t offset);

}  // namespace sl::runtime
