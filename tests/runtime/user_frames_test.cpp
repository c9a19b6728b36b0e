// The recorder's search for the user's frame beyond its backtraces (interposer/src/UserFrames.h):
// the call-instruction check on real encodings, and a scan of this thread's real stack through
// 24 frames of "library" code, as a LibTorch call has between the user's line and CUDA.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "UserFrames.h"

using sl::ip::TextRanges;

namespace {

TextRanges rangeOf(const void* p, size_t n) {
  TextRanges t;
  t.n = 1;
  t.lo[0] = t.min = reinterpret_cast<uintptr_t>(p);
  t.hi[0] = t.max = t.min + n;
  return t;
}

// `bytes` end just before the return address; the buffer before them is no-ops.
bool precededByCall(std::vector<uint8_t> bytes) {
  std::vector<uint8_t> code(32, 0x90);
  code.insert(code.end(), bytes.begin(), bytes.end());
  size_t ra = code.size();
  code.resize(code.size() + 8, 0x90);
  TextRanges t = rangeOf(code.data(), code.size());
  return sl::ip::callPrecedes(t, reinterpret_cast<uintptr_t>(code.data() + ra));
}

}  // namespace

TEST(UserFrames, CallEncodings) {
  EXPECT_TRUE(precededByCall({0xE8, 0x10, 0x20, 0x30, 0x00}));        // call rel32
  EXPECT_TRUE(precededByCall({0xFF, 0xD0}));                          // call rax
  EXPECT_TRUE(precededByCall({0x41, 0xFF, 0xD3}));                    // call r11
  EXPECT_TRUE(precededByCall({0xFF, 0x15, 0x00, 0x10, 0x00, 0x00}));  // call [rip+0x1000]
  EXPECT_TRUE(precededByCall({0xFF, 0x50, 0x08}));                    // call [rax+8]
  EXPECT_TRUE(precededByCall({0xFF, 0x14, 0x24}));                    // call [rsp]
  EXPECT_TRUE(precededByCall({0xFF, 0x54, 0x24, 0x08}));              // call [rsp+8]
  EXPECT_TRUE(precededByCall({0xFF, 0x90, 0x00, 0x01, 0x00, 0x00}));  // call [rax+0x100]
  EXPECT_TRUE(precededByCall({0xFF, 0x94, 0x24, 0x00, 0x01, 0x00, 0x00}));  // call [rsp+0x100]
  EXPECT_FALSE(precededByCall({0xFF, 0xE0}));                         // jmp rax
  EXPECT_FALSE(precededByCall({0xFF, 0x25, 0x00, 0x10, 0x00, 0x00}));  // jmp [rip+0x1000]
  EXPECT_FALSE(precededByCall({0x48, 0x89, 0xC7}));                   // mov rdi, rax
  EXPECT_FALSE(precededByCall({0xC3}));                               // ret
  EXPECT_FALSE(precededByCall({0xFF, 0x50}));  // call [rax+disp8] cut short: not a whole call
}

TEST(UserFrames, OutsideTheTextIsNoReturnAddress) {
  std::vector<uint8_t> code(64, 0x90);
  code[40] = 0xE8;  // a call ending at 45
  TextRanges t = rangeOf(code.data() + 8, 48);
  auto at = [&](size_t i) { return reinterpret_cast<uintptr_t>(code.data() + i); };
  EXPECT_TRUE(sl::ip::callPrecedes(t, at(45)));
  EXPECT_FALSE(sl::ip::callPrecedes(t, at(10)));  // its call would start before the text
}

TEST(UserFrames, ScanKeepsTheFirstReturnAddresses) {
  std::vector<uint8_t> code(64, 0x90);
  code[40] = 0xE8;         // a call ending at 45
  code[50] = 0xFF;         // call rax, ending at 52
  code[51] = 0xD0;
  TextRanges t = rangeOf(code.data() + 8, 56);
  auto at = [&](size_t i) { return reinterpret_cast<uintptr_t>(code.data() + i); };
  // Not a data word, not a text address after no call; a repeat is kept once. Words come in
  // blocks of four and a rest, so that both paths of the scan see return addresses.
  std::vector<uintptr_t> words = {12345, at(30), reinterpret_cast<uintptr_t>(&t), 7,
                                   0, 0, 0, at(45),
                                   at(45), 1, at(52), at(30), at(45)};
  const uintptr_t* out[4] = {};
  ASSERT_EQ(sl::ip::scanForReturns(t, words.data(), words.data() + words.size(), out, 4), 3);
  EXPECT_EQ(out[0], &words[7]);
  EXPECT_EQ(out[1], &words[10]);
  EXPECT_EQ(out[2], &words[12]);
  EXPECT_EQ(sl::ip::scanForReturns(t, words.data(), words.data() + words.size(), out, 1), 1);
  EXPECT_EQ(sl::ip::scanForReturns(t, words.data(), words.data() + 7, out, 4), 0);
  EXPECT_EQ(sl::ip::scanForReturns(t, words.data() + 12, words.data() + 13, out, 4), 1);  // the rest
}

TEST(UserFrames, UserTextHasTheProgramNotTheLibraries) {
  sl::ip::captureUserText();
  const TextRanges* t = sl::ip::userText();
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->contains(reinterpret_cast<uintptr_t>(&precededByCall)));
  void* libcPrintf = dlsym(RTLD_DEFAULT, "printf");
  ASSERT_NE(libcPrintf, nullptr);
  EXPECT_FALSE(t->contains(reinterpret_cast<uintptr_t>(libcPrintf)));
  // libstdc++ (a library) unless linked statically: operator new's definition.
  Dl_info info{};
  void* opNew = dlsym(RTLD_DEFAULT, "_Znwm");
  if (opNew && dladdr(opNew, &info) && info.dli_fname && strstr(info.dli_fname, "libstdc++")) {
    EXPECT_FALSE(t->contains(reinterpret_cast<uintptr_t>(opNew)));
  }
}

// The "user's code" here is one section; everything else in the program stands for the library.
extern "C" char __start_sl_test_user[], __stop_sl_test_user[];
namespace {
uintptr_t g_expected = 0, g_found = 0;

__attribute__((noinline)) void libraryDepth(int depth) {
  if (depth == 24) g_expected = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
  if (depth > 0) {
    libraryDepth(depth - 1);
    asm volatile("" ::: "memory");  // not a tail call: every level keeps its frame
    return;
  }
  TextRanges user = rangeOf(__start_sl_test_user, size_t(__stop_sl_test_user - __start_sl_test_user));
  auto* sp = static_cast<const uintptr_t*>(__builtin_frame_address(0));
  uintptr_t lo = 0, top = 0;
  ASSERT_TRUE(sl::ip::stackBounds(lo, top));
  ASSERT_LT(lo, reinterpret_cast<uintptr_t>(sp));
  ASSERT_GT(top, reinterpret_cast<uintptr_t>(sp));
  const uintptr_t* out[2] = {};
  int n = sl::ip::scanForReturns(user, sp, reinterpret_cast<const uintptr_t*>(top), out, 2);
  ASSERT_EQ(n, 1);  // nothing else on the stack returns into the section
  g_found = *out[0];
}
}  // namespace

__attribute__((section("sl_test_user"), noinline)) void userLine() {
  libraryDepth(24);
  asm volatile("" ::: "memory");
}

TEST(UserFrames, FindsTheUserCallBelowDeepLibraryFrames) {
  userLine();
  ASSERT_NE(g_expected, 0u);
  EXPECT_EQ(g_found, g_expected);  // the return address of userLine's call into the library
}

TEST(UserFrames, StackBoundsOfAnotherThread) {
  uintptr_t lo = 0, top = 0, here = 0;
  bool ok = false;
  std::thread([&] {
    here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    ok = sl::ip::stackBounds(lo, top);
  }).join();
  ASSERT_TRUE(ok);
  EXPECT_LT(lo, here);
  EXPECT_GT(top, here);
  EXPECT_LT(top - lo, uintptr_t(1) << 30);  // the thread's own stack
}
