// compat/glibc_compat.c: the fallback _dl_find_object (for glibc < 2.35) agrees with glibc's,
// and C++ exceptions unwind through it. The test links the C++ runtime statically, as the
// shipped binaries do, so that its unwinder (libgcc_eh) calls the compat definition.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

extern "C" int _dl_find_object(void* address, struct dl_find_object* result);
extern "C" void sl_compat_use_fallback(void);
extern "C" uint32_t arc4random(void);

namespace {

using GlibcFind = int (*)(void*, struct dl_find_object*);

GlibcFind glibcFind() { return reinterpret_cast<GlibcFind>(dlsym(RTLD_DEFAULT, "_dl_find_object")); }

[[gnu::noinline]] int thrower(int depth) {
  if (depth == 0) throw std::runtime_error("deep");
  return thrower(depth - 1) + 1;
}

}  // namespace

TEST(GlibcCompat, FallbackFindsTheSameObjectsAsGlibc) {
  GlibcFind glibc = glibcFind();
  if (!glibc) GTEST_SKIP() << "glibc < 2.35: nothing to compare with";
  sl_compat_use_fallback();
  int onStack = 0;
  void* addresses[] = {reinterpret_cast<void*>(&thrower), reinterpret_cast<void*>(&dlsym),
                       reinterpret_cast<void*>(&::testing::UnitTest::GetInstance)};
  for (void* a : addresses) {
    dl_find_object mine{}, theirs{};
    ASSERT_EQ(_dl_find_object(a, &mine), 0);
    ASSERT_EQ(glibc(a, &theirs), 0);
    EXPECT_EQ(mine.dlfo_eh_frame, theirs.dlfo_eh_frame);
    EXPECT_NE(mine.dlfo_eh_frame, nullptr);
    EXPECT_LE(mine.dlfo_map_start, a);
    EXPECT_GT(mine.dlfo_map_end, a);
  }
  dl_find_object none{};
  EXPECT_EQ(_dl_find_object(&onStack, &none), -1);  // not in any object's image
}

TEST(GlibcCompat, ExceptionsUnwindThroughTheFallback) {
  sl_compat_use_fallback();
  std::string what;
  try {
    thrower(20);
  } catch (const std::runtime_error& e) {
    what = e.what();
  }
  EXPECT_EQ(what, "deep");
}

TEST(GlibcCompat, Arc4randomGivesRandomWords) {
  uint32_t a = arc4random(), b = arc4random(), c = arc4random();
  EXPECT_FALSE(a == b && b == c);  // 2^-64 to fail by chance
}
