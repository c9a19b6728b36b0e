#include <gtest/gtest.h>

#include "driver/Suppressions.h"

using sl::suppressedBy;

TEST(Suppressions, NoqaWithAndWithoutRules) {
  EXPECT_TRUE(suppressedBy("x.item()  # noqa: SL301", "", "SL301"));
  EXPECT_TRUE(suppressedBy("x.item()  # noqa: SL302, SL301", "", "SL301"));
  EXPECT_FALSE(suppressedBy("x.item()  # noqa: SL302", "", "SL301"));
  EXPECT_TRUE(suppressedBy("x.item()  # noqa", "", "SL301"));
  EXPECT_FALSE(suppressedBy("x.item()", "", "SL301"));
}

TEST(Suppressions, NolintAndNextLine) {
  EXPECT_TRUE(suppressedBy("k<<<1, 1>>>();  // NOLINT(SL601)", "", "SL601"));
  EXPECT_FALSE(suppressedBy("k<<<1, 1>>>();  // NOLINT(SL301)", "", "SL601"));
  EXPECT_TRUE(suppressedBy("k<<<1, 1>>>();", "// NOLINTNEXTLINE(SL601)", "SL601"));
  EXPECT_FALSE(suppressedBy("k<<<1, 1>>>();", "// NOLINTNEXTLINE(SL301)", "SL601"));
  EXPECT_FALSE(suppressedBy("k<<<1, 1>>>();  // NOLINTNEXTLINE(SL601)", "", "SL601"));
}
