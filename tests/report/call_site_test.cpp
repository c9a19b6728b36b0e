// Where a native call is placed (runtime/CallSite.h) when the recorder found the user's frames on
// the stack (kScannedFrames: a library's call in a LibTorch program), with this test program as
// the user's module, symbolized by addr2line from its own debug info.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "runtime/CallSite.h"
#include "runtime/Symbolizer.h"

namespace sl::runtime {
namespace {

constexpr uint64_t kLibBase = 0x7f0000000000;  // a library's text, not on this machine's disk

__attribute__((noinline)) uintptr_t returnAddressHere() {
  return reinterpret_cast<uintptr_t>(__builtin_return_address(0));
}

struct Fixture {
  ProcessLog log;
  uintptr_t userLine = 0;  // a return address into this file, with a line
  int line = 0;

  Fixture(const std::string& userModule) {
    line = __LINE__ + 1;
    userLine = returnAddressHere();
    Dl_info info{};
    EXPECT_NE(dladdr(reinterpret_cast<void*>(userLine), &info), 0);
    auto base = reinterpret_cast<uint64_t>(info.dli_fbase);
    log.modules.push_back({userModule, base, base, base + (64u << 20)});
    log.modules.push_back({"/opt/torch/lib/libc10_cuda.so", kLibBase, kLibBase, kLibBase + (1u << 20)});
  }

  CallSite place(std::vector<uint64_t> frames, uint8_t flags) {
    ApiCall c;
    c.rec = slog::ApiRecord{};
    c.rec.api = slog::Api::cudaMalloc;
    c.rec.flags = flags;
    c.nframes = uint8_t(frames.size());
    c.framesAt = uint32_t(log.frames.size());
    log.frames.insert(log.frames.end(), frames.begin(), frames.end());
    Symbolizer sym;
    queueCallSite(log, c, sym);
    sym.run();
    return resolveCallSite(log, c, sym);
  }
};

std::string self() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return std::string(buf, n > 0 ? size_t(n) : 0);
}

TEST(CallSite, ScannedFramesTakeTheFirstWithASourceLine) {
  Fixture f(self());
  // A stale address first: in the program's module but outside any function with a line.
  uint64_t stale = f.log.modules[0].base + 1;
  CallSite s = f.place({kLibBase + 0x100, stale, f.userLine}, slog::kScannedFrames);
  EXPECT_NE(s.path.find("call_site_test.cpp"), std::string::npos) << s.path;
  EXPECT_EQ(s.line, uint32_t(f.line));
}

TEST(CallSite, ScannedFramesWithoutLinesFallBackToTheLibrarysCall) {
  Fixture f("/nonexistent/user_program");  // no debug info to read: no lines
  CallSite s = f.place({kLibBase + 0x100, f.userLine}, slog::kScannedFrames);
  EXPECT_EQ(s.path, "/opt/torch/lib/libc10_cuda.so");
  EXPECT_EQ(s.native, "/opt/torch/lib/libc10_cuda.so+0xff");
  // A backtrace (not scanned) keeps naming the user's module, line or not.
  CallSite b = f.place({kLibBase + 0x100, f.userLine}, 0);
  EXPECT_EQ(b.path, "/nonexistent/user_program");
}

}  // namespace
}  // namespace sl::runtime

TEST(CallSite, LibraryCodeIsLibrariesNotEverythingUnderOpt) {
  EXPECT_FALSE(sl::runtime::isLibraryCode("/opt/app/train.py"));  // a container's own code
  EXPECT_FALSE(sl::runtime::isLibraryCode("/srv/job/model.cu"));
  EXPECT_FALSE(sl::runtime::isLibraryCode("train.py"));
  EXPECT_TRUE(sl::runtime::isLibraryCode("/opt/conda/lib/python3.12/site-packages/torch/nn/modules/module.py"));
  EXPECT_TRUE(sl::runtime::isLibraryCode("/opt/pytorch/pytorch/aten/src/ATen/native/cuda/Copy.cu"));
  EXPECT_TRUE(sl::runtime::isLibraryCode("/usr/lib/python3.11/threading.py"));
  EXPECT_TRUE(sl::runtime::isLibraryCode("/usr/local/cuda/include/cuda_runtime.h"));
  EXPECT_TRUE(sl::runtime::isLibraryCode("<frozen importlib._bootstrap>"));
}

namespace sl::runtime {
namespace {

// moduleFor answers from a cache by address: the same answers as a scan of the modules in order
// (the first that holds the address), also for addresses that share a cache slot, and once a
// module is added (an address no module held before).
TEST(ModuleFor, CachedAnswersAreTheScansAnswers) {
  ProcessLog log;
  log.modules.push_back(Module{"/usr/lib/libcudart.so", 0x1000, 0x1000, 0x9000});
  log.modules.push_back(Module{"/home/u/libmine.so", 0x20000, 0x20000, 0x30000});
  log.modules.push_back(Module{"/usr/lib/overlapping.so", 0x2000, 0x2000, 0x4000});  // inside the first
  auto scan = [&](uint64_t a) -> const Module* {
    for (const auto& m : log.modules)
      if (a >= m.lo && a < m.hi) return &m;
    return nullptr;
  };
  size_t wrong = 0;
  for (int round = 0; round < 2; ++round)
    for (uint64_t a = 0; a < 0x40000; a += 0x7f) wrong += log.moduleFor(a) != scan(a);
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(log.moduleFor(0x35000), nullptr);
  log.modules.push_back(Module{"/home/u/late.so", 0x34000, 0x34000, 0x36000});  // dlopen'ed later
  ASSERT_NE(log.moduleFor(0x35000), nullptr);
  EXPECT_EQ(log.moduleFor(0x35000)->path, "/home/u/late.so");
  for (uint64_t a = 0; a < 0x40000; a += 0x7f) wrong += log.moduleFor(a) != scan(a);
  EXPECT_EQ(wrong, 0u);
}

}  // namespace
}  // namespace sl::runtime
