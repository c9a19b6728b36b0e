// Fingerprints, baselines, diff parsing and the suppression ledger: the pieces a
// pull-request gate relies on.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "TempDir.h"
#include "driver/Baseline.h"
#include "driver/GitDiff.h"
#include "driver/Suppressions.h"
#include "output/Fingerprint.h"

namespace fs = std::filesystem;

namespace {

sl::Finding at(const std::string& path, uint32_t line, const std::string& rule = "SL302") {
  return {rule, sl::Severity::Note, path, {line, 5}, "msg", {}, {}};
}

}  // namespace

TEST(Fingerprint, SurvivesLineShiftsNotEdits) {
  TempDir t("gating_test");
  std::string f = t.write("a.py", "x.item()\ny = 1\nx.item()\n");
  sl::Fingerprinter before(t.dir.string());
  std::string first = before.next(at(f, 1)), second = before.next(at(f, 3));
  EXPECT_NE(first, second);  // same text: told apart by occurrence
  EXPECT_EQ(first.substr(0, 16), second.substr(0, 16));
  EXPECT_EQ(before.relative(f), "a.py");

  t.write("a.py", "import os\n\n  x.item()  \ny = 1\nx.item()\n");  // shifted, re-indented
  sl::Fingerprinter after(t.dir.string());
  EXPECT_EQ(after.next(at(f, 3)), first);
  EXPECT_EQ(after.next(at(f, 5)), second);

  t.write("a.py", "x.item() + 1\n");
  sl::Fingerprinter edited(t.dir.string());
  EXPECT_NE(edited.next(at(f, 1)), first);
  sl::Fingerprinter other(t.dir.string());
  EXPECT_NE(other.next(at(f, 1, "SL301")), edited.next(at(f, 1)));  // the rule is part of it
}

TEST(Baseline, OnlyNewFindingsRemain) {
  TempDir t("gating_test");
  std::string f = t.write("a.py", "x.item()\ny.item()\n");
  std::string base = (t.dir / "baseline.json").string(), err;
  ASSERT_TRUE(sl::writeBaseline(base, {at(f, 1), at(f, 2)}, err)) << err;

  t.write("a.py", "# moved\nx.item()\nz.item()\ny.item()\n");
  sl::BaselineResult r;
  ASSERT_TRUE(sl::applyBaseline(base, {at(f, 2), at(f, 3), at(f, 4)}, r, err)) << err;
  ASSERT_EQ(r.fresh.size(), 1u);
  EXPECT_EQ(r.fresh[0].loc.line, 3u);
  EXPECT_EQ(r.known, 2u);
  EXPECT_EQ(r.stale, 0u);

  sl::BaselineResult fixed;
  ASSERT_TRUE(sl::applyBaseline(base, {}, fixed, err));
  EXPECT_EQ(fixed.stale, 2u);

  t.write("bad.json", "{\"findings\": 3}");
  EXPECT_FALSE(sl::applyBaseline((t.dir / "bad.json").string(), {}, r, err));
  EXPECT_NE(err.find("invalid baseline"), std::string::npos) << err;
  // A version too large for an int (make fuzz's baseline target, UBSan) or not a number: refused.
  for (const char* v : {"1.44e105", "1.5", "\"1\""}) {
    t.write("v.json", std::string("{\"tool\": \"streamlint\", \"version\": ") + v + ", \"findings\": []}");
    EXPECT_FALSE(sl::applyBaseline((t.dir / "v.json").string(), {}, r, err)) << v;
    EXPECT_NE(err.find("not a streamlint baseline"), std::string::npos) << err;
  }
  t.write("v.json", "{\"tool\": \"streamlint\", \"version\": 1.0, \"findings\": []}");
  EXPECT_TRUE(sl::applyBaseline((t.dir / "v.json").string(), {}, r, err)) << err;
}

TEST(GitDiff, ParsesZeroContextHunks) {
  TempDir t("gating_test");
  sl::ChangedLines c;
  c.parseDiff(
      "diff --git a/p.py b/p.py\n--- a/p.py\n+++ b/p.py\n@@ -3 +3 @@\n-a\n+b\n"
      "@@ -10,0 +11,2 @@\n+c\n+d\n@@ -20,2 +22,0 @@\n-e\n-f\n"
      "diff --git a/gone.py b/gone.py\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
      t.dir.string());
  std::string p = (t.dir / "p.py").string();
  EXPECT_TRUE(c.contains(p, 3));
  EXPECT_FALSE(c.contains(p, 4));
  EXPECT_TRUE(c.contains(p, 11));
  EXPECT_TRUE(c.contains(p, 12));
  EXPECT_FALSE(c.contains(p, 13));
  EXPECT_FALSE(c.contains(p, 22));  // pure deletion: no new line
  EXPECT_FALSE(c.contains((t.dir / "other.py").string(), 3));
  c.addWholeFile((t.dir / "new.py").string());
  EXPECT_TRUE(c.contains((t.dir / "new.py").string(), 40));
}

// git C-quotes names with special characters and ends one with a space with a TAB: such files
// were silently dropped from --diff (3 findings in a full run, 1 with --diff HEAD, exit 0).
TEST(GitDiff, ReadsQuotedAndTabEndedNames) {
  EXPECT_EQ(sl::unquoteGitPath("b/plain.py"), "b/plain.py");
  EXPECT_EQ(sl::unquoteGitPath("b/with space.py\t"), "b/with space.py");
  EXPECT_EQ(sl::unquoteGitPath("\"b/caf\\303\\251.py\""), "b/caf\xc3\xa9.py");
  EXPECT_EQ(sl::unquoteGitPath("\"b/a\\tb\\\"c\\\\d.py\""), "b/a\tb\"c\\d.py");
  TempDir t("gating_quoted");
  sl::ChangedLines c;
  c.parseDiff("--- \"a/caf\\303\\251.py\"\n+++ \"b/caf\\303\\251.py\"\n@@ -1 +1 @@\n-a\n+b\n"
              "--- a/with space.py\t\n+++ b/with space.py\t\n@@ -2 +2 @@\n-a\n+++ not a header\n",
              t.dir.string());
  EXPECT_TRUE(c.contains((t.dir / "caf\xc3\xa9.py").string(), 1));
  EXPECT_TRUE(c.contains((t.dir / "with space.py").string(), 2));
  EXPECT_EQ(c.changedFiles().size(), 2u);
}

// A REV that starts with `-` would be an option to git (`--diff --output=FILE` overwrote FILE).
TEST(GitDiff, RefusesARevThatLooksLikeAnOption) {
  TempDir t("gating_rev");
  sl::ChangedLines c;
  std::string err;
  EXPECT_FALSE(c.load("--output=" + (t.dir / "clobbered").string(), t.dir.string(), err));
  EXPECT_NE(err.find("cannot start with '-'"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(t.dir / "clobbered"));
}

TEST(Suppressions, MarkersListCodesUntilProse) {
  auto m = sl::markersIn("x.item()  # noqa: SL301, E501 because the loop is cold");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].rules, (std::vector<std::string>{"SL301", "E501"}));
  EXPECT_EQ(m[0].col, 11u);
  auto n = sl::markersIn("f();  // NOLINTNEXTLINE(SL601,readability-x)");
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].kind, sl::Marker::Kind::NolintNextLine);
  EXPECT_EQ(n[0].rules, (std::vector<std::string>{"SL601", "readability-x"}));
  EXPECT_TRUE(sl::markersIn("f();  // NOLINT")[0].all);
}

TEST(Suppressions, LedgerReportsOnlyUnusedListedCodes) {
  sl::SourceFile f("a.cu", "k<<<1,1>>>();  // NOLINT(SL601, SL301)\n// NOLINTNEXTLINE(SL601)\nk<<<1,1>>>();\n"
                           "x = 1  # noqa: SL302\ny = 2  # noqa\n");
  sl::SuppressionLedger l(f);
  EXPECT_TRUE(l.suppress(at("a.cu", 1, "SL601")));
  EXPECT_TRUE(l.suppress(at("a.cu", 3, "SL601")));
  EXPECT_FALSE(l.suppress(at("a.cu", 3, "SL301")));
  std::vector<sl::Finding> unused;
  l.reportUnused([](const std::string& code) { return code != "SL302"; }, unused);
  ASSERT_EQ(unused.size(), 1u);  // SL301 on line 1; SL302 did not run; the bare noqa is not ours
  EXPECT_EQ(unused[0].loc.line, 1u);
  EXPECT_NE(unused[0].message.find("SL301"), std::string::npos);
}

// Issue 32: a baseline written anywhere in a repository names files relative to the
// repository, so a clone at another path (read from any directory) matches every entry.
TEST(Baseline, MatchesInACloneAtAnotherPath) {
  TempDir t("gating_test");
  for (const char* clone : {"one/repo", "two/elsewhere/repo"}) {
    fs::create_directories(t.dir / clone / ".git");
    t.write(std::string(clone) + "/src/a.py", "x.item()\ny.item()\n");
  }
  const std::string a = (t.dir / "one/repo/src/a.py").string(), b = (t.dir / "two/elsewhere/repo/src/a.py").string();
  std::string base = (t.dir / "one/repo/.github/baseline.json").string(), err;
  fs::create_directories(t.dir / "one/repo/.github");
  ASSERT_TRUE(sl::writeBaseline(base, {at(a, 1), at(a, 2)}, err)) << err;
  const std::string text = readWhole(base);
  EXPECT_NE(text.find("\"path\": \"src/a.py\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"root\": \"repository\""), std::string::npos) << text;
  fs::create_directories(t.dir / "two/elsewhere/repo/.github");
  fs::copy_file(base, t.dir / "two/elsewhere/repo/.github/baseline.json");
  sl::BaselineResult r;
  ASSERT_TRUE(sl::applyBaseline((t.dir / "two/elsewhere/repo/.github/baseline.json").string(), {at(b, 1), at(b, 2)}, r, err))
      << err;
  EXPECT_EQ(r.known, 2u);
  EXPECT_TRUE(r.fresh.empty());
  // Without a repository: relative to the baseline's directory, "../" included.
  fs::create_directories(t.dir / "plain/gate");
  t.write("plain/src/a.py", "x.item()\n");
  std::string loose = (t.dir / "plain/gate/b.json").string();
  ASSERT_TRUE(sl::writeBaseline(loose, {at((t.dir / "plain/src/a.py").string(), 1)}, err)) << err;
  const std::string text2 = readWhole(loose);
  EXPECT_NE(text2.find("\"path\": \"../src/a.py\""), std::string::npos) << text2;
}
