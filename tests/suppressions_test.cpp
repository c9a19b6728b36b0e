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

namespace {

bool suppressedIn(const std::string& text, uint32_t line, const std::string& rule) {
  sl::SourceFile file("t.py", text);
  sl::SuppressionLedger ledger(file);
  sl::Finding f;
  f.ruleId = rule;
  f.path = "t.py";
  f.loc = {line, 1};
  return ledger.suppress(f);
}

}  // namespace

TEST(Suppressions, FileWide) {
  const std::string all = "# streamlint: noqa-file\nx.item()\n";
  EXPECT_TRUE(suppressedIn(all, 2, "SL302"));
  const std::string listed = "x.item()\n// streamlint: noqa-file: SL302, SL301\n";
  EXPECT_TRUE(suppressedIn(listed, 1, "SL301"));
  EXPECT_FALSE(suppressedIn(listed, 1, "SL101"));
  // Outside a comment it is text, not a marker.
  EXPECT_FALSE(suppressedIn("s = 'streamlint: noqa-file'\nx.item()\n", 2, "SL302"));
}

TEST(Suppressions, NolintBeginEnd) {
  const std::string block =
      "a()\n// NOLINTBEGIN(SL601)\nk<<<1, 1>>>();\n// NOLINTEND(SL601)\nk<<<1, 1>>>();\n";
  EXPECT_FALSE(suppressedIn(block, 1, "SL601"));
  EXPECT_TRUE(suppressedIn(block, 3, "SL601"));
  EXPECT_FALSE(suppressedIn(block, 3, "SL301"));
  EXPECT_FALSE(suppressedIn(block, 5, "SL601"));
  // A BEGIN line is not a bare NOLINT for every rule on its own line.
  EXPECT_FALSE(suppressedBy("// NOLINTBEGIN(SL601)", "", "SL301"));
  // Unclosed: to the end of the file; Python comments work too.
  EXPECT_TRUE(suppressedIn("# NOLINTBEGIN\nx.item()\n", 2, "SL302"));
}
