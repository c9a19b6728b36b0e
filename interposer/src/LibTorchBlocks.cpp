// Sanitize mode for LibTorch C++ programs: the caching allocator's block lifetimes, the data the
// Python side gets from torch.cuda.memory._record_memory_history (python/sitecustomize.py).
//
// When: a program linked against libtorch_cuda.so has it loaded before main. The recorder wraps
// main (through __libc_start_main) and, before main runs, starts LibTorch's own C++ entry point
// torch::cuda::_record_memory_history(enabled "all", context none, ...): no stacks, the same
// cheap trace as in Python. Not earlier: in a preloaded library's constructor LibTorch's static
// state may not be built yet. At exit (an atexit handler registered then, so it runs before the
// recorder's own and before LibTorch's static destructors), torch::cuda::_memory_snapshot_pickled()
// gives the trace, which SnapshotPickle.cpp reads into block records.
//
// Which LibTorch: the entry points are found by their mangled names, no LibTorch header is
// needed. The (optional<string>, optional<string>, const string&, size_t, ...) family with up to
// three trailing bools and the skip-actions vector is accepted (the signature grew over releases;
// extra arguments are ignored by a shorter callee). Tested: torch 2.11 (cu130) on the H200.
// Python processes load torch later, with dlopen: nothing happens here for them.
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "Hooks.h"
#include "RealDlsym.h"
#include "Recorder.h"
#include "Sanitize.h"
#include "SnapshotPickle.h"

namespace sl::ip {

namespace {

using OptStr = std::optional<std::string>;
using RecordFn = void (*)(OptStr, OptStr, const std::string&, size_t, bool, bool, bool,
                          const std::vector<std::string>&);
using SnapshotFn = std::string (*)();
using MainFn = int (*)(int, char**, char**);

MainFn g_realMain = nullptr;
SnapshotFn g_snapshot = nullptr;
pid_t g_tracePid = 0;

RecordFn findRecord() {
  const std::string base =
      "_ZN5torch4cuda22_record_memory_historyESt8optionalINSt7__cxx1112basic_stringIcSt11char_traitsIcE"
      "SaIcEEEES8_RKS7_m";
  for (int bools = 3; bools >= 0; --bools)
    for (const char* tail : {"RKSt6vectorIS7_SaIS7_EE", ""}) {
      std::string name = base + std::string(size_t(bools), 'b') + tail;
      if (void* f = realDlsym(RTLD_DEFAULT, name.c_str())) return reinterpret_cast<RecordFn>(f);
    }
  return nullptr;
}

void dumpTrace() {
  if (getpid() != g_tracePid || !g_snapshot) return;  // a forked child holds a copy of the parent's
  std::string pickled;
  try {
    pickled = g_snapshot();
  } catch (...) {
    notice("libtorch-snapshot", "LibTorch's allocator snapshot failed; SL904 is not judged in this process");
    return;
  }
  std::vector<SnapshotEntry> entries;
  std::string error;
  if (!readSnapshotTrace(pickled.data(), pickled.size(), entries, error)) {
    notice("libtorch-snapshot", "cannot read LibTorch's allocator snapshot (%s); SL904 is not judged in this process",
           error.c_str());
    return;
  }
  std::vector<uint64_t> words;
  words.reserve((entries.size() + 4) * 6);
  uint64_t lastDevice = ~0ull;
  for (const SnapshotEntry& e : entries) {
    uint64_t ns = e.timeUs * 1000;  // CLOCK_REALTIME; the report aligns it with the launches
    if (e.device != lastDevice) {  // where the allocator's ring begins: older blocks are unknown
      words.insert(words.end(), {uint64_t(slog::BlockAction::Snapshot), 0, 0, 0, e.device, ns});
      lastDevice = e.device;
    }
    if (e.action) words.insert(words.end(), {e.action, e.addr, e.size, e.stream, e.device, ns});
  }
  writeBlockTrace(words.data(), words.size() / 6);
}

void startTrace() {
  RecordFn record = findRecord();
  g_snapshot = reinterpret_cast<SnapshotFn>(realDlsym(RTLD_DEFAULT, "_ZN5torch4cuda24_memory_snapshot_pickledB5cxx11Ev"));
  if (!record || !g_snapshot) return;  // not a LibTorch program (or a LibTorch we do not know)
  size_t maxEntries = 1000000;
  if (const char* v = getenv("SL_SANITIZE_BLOCKS"); v && *v) maxEntries = strtoull(v, nullptr, 10);
  try {
    record(OptStr("all"), std::nullopt, "python", maxEntries, false, false, false, {});
  } catch (...) {
    notice("libtorch-snapshot", "cannot trace LibTorch's caching allocator; SL904 is not judged in this process");
    return;
  }
  g_tracePid = getpid();
  atexit(dumpTrace);
}

int mainWithTrace(int argc, char** argv, char** envp) {
  startTrace();
  return g_realMain(argc, argv, envp);
}

}  // namespace

}  // namespace sl::ip

// Only the main function handed on changes, and only in sanitize mode.
SL_EXPORT int __libc_start_main(int (*main)(int, char**, char**), int argc, char** argv, void (*init)(),
                                void (*fini)(), void (*rtldFini)(), void* stackEnd) {
  using Fn = int (*)(int (*)(int, char**, char**), int, char**, void (*)(), void (*)(), void (*)(), void*);
  sl::ip::initRealDlsym();
  auto real = reinterpret_cast<Fn>(sl::ip::realDlsym(RTLD_NEXT, "__libc_start_main"));
  if (sl::ip::g_sanitize && main) {
    sl::ip::g_realMain = main;
    main = sl::ip::mainWithTrace;
  }
  return real(main, argc, argv, init, fini, rtldFini, stackEnd);
}
