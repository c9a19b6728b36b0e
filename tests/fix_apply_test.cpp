// `--fix` writes only what was analysed, as the file stores it (driver/FixApply.h), and text
// edits never step outside the text (core/TextEdits.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "TempDir.h"
#include "core/SourceFile.h"
#include "core/TextEdits.h"
#include "driver/FixApply.h"

namespace {

// The bytes --fix writes for `ff`, or "<refused: why>" when it cannot write them.
std::string fixedText(const sl::FileFixes& ff) {
  std::string bytes, err;
  size_t skipped = 0;
  return sl::fixedBytes(ff, bytes, skipped, err) ? bytes : "<refused: " + err + ">";
}

// An SL103-style fix on line `line`: `.default_stream(` at column `col` becomes `.current_stream(`.
sl::Finding replacing(const std::string& path, uint32_t line, uint32_t col) {
  sl::Finding f{"SL103", sl::Severity::Warning, path, {line, col}, "msg", {}, {}};
  f.fixes.push_back({"use current_stream()", {{{line, col}, {line, col + 16}, ".current_stream("}}});
  return f;
}

std::string digestOf(const std::string& path) {
  std::string err;
  auto file = sl::SourceFile::load(path, err);
  return file ? sl::textDigest(file->text()) : "";
}

}  // namespace

// A file saved while the check ran is left alone: its fixes' positions are the old text's
// (they once made `side.wai.current_stream(...)` of a shifted line, exit 0).
TEST(FixApply, AFileChangedSinceTheAnalysisIsRefused) {
  TempDir t("fix_stale");
  const std::string f = t.write("a.py", "import torch\nx.wait_stream(torch.cuda.default_stream())\n");
  const std::map<std::string, std::string> basis = {{f, digestOf(f)}};
  t.write("a.py", "import torch\nside.wait_stream(torch.cuda.default_stream())\n");
  sl::FixRun run = sl::planFixes({replacing(f, 2, 25)}, basis, {t.dir.string()});
  EXPECT_TRUE(run.files.empty());
  ASSERT_EQ(run.refused.size(), 1u);
  EXPECT_NE(run.refused[0].find("changed since it was analysed"), std::string::npos) << run.refused[0];

  t.write("a.py", "import torch\nx.wait_stream(torch.cuda.default_stream())\n");  // as analysed again
  run = sl::planFixes({replacing(f, 2, 25)}, basis, {t.dir.string()});
  ASSERT_EQ(run.files.size(), 1u);
  EXPECT_EQ(fixedText(run.files.at(f)), "import torch\nx.wait_stream(torch.cuda.current_stream())\n");
}

// One finding reported twice (a path named twice) inserts its line once.
TEST(FixApply, TheSameEditTwiceIsMadeOnce) {
  TempDir t("fix_twice");
  const std::string f = t.write("a.py", "x = 1\ny = 2\n");
  sl::Finding ins{"SL501", sl::Severity::Warning, f, {2, 1}, "msg", {}, {}};
  ins.fixes.push_back({"sync", {{{2, 1}, {2, 1}, "torch.cuda.synchronize()\n"}}});
  sl::FixRun run = sl::planFixes({ins, ins}, {{f, digestOf(f)}}, {t.dir.string()});
  ASSERT_EQ(run.files.size(), 1u);
  EXPECT_EQ(fixedText(run.files.at(f)), "x = 1\ntorch.cuda.synchronize()\ny = 2\n");
}

// A declared encoding is written back; a character it has no byte for refuses the fix (the
// file was once written back as UTF-8, its 'été' turned to mojibake).
TEST(FixApply, KeepsTheDeclaredEncodingOrRefuses) {
  TempDir t("fix_latin1");
  const std::string f = t.write("l.py", "# -*- coding: latin-1 -*-\ns = '\xe9t\xe9'\nx.default_stream()\n");
  sl::FixRun run = sl::planFixes({replacing(f, 3, 2)}, {{f, digestOf(f)}}, {t.dir.string()});
  ASSERT_EQ(run.files.size(), 1u) << (run.refused.empty() ? "" : run.refused[0]);
  sl::FileFixes ff = run.files.at(f);
  EXPECT_EQ(fixedText(ff), "# -*- coding: latin-1 -*-\ns = '\xe9t\xe9'\nx.current_stream()\n");
  ff.edits[0].text = ".current_stream(\xe2\x82\xac";  // a euro sign: not in latin-1
  const std::string refused = fixedText(ff);
  EXPECT_TRUE(refused.starts_with("<refused: ")) << refused;
  EXPECT_NE(refused.find("latin-1"), std::string::npos) << refused;
}

// Inserted lines end as the file's lines do; lone CRs stay CRs; nothing goes before a BOM.
TEST(FixApply, KeepsLineEndingsAndTheBom) {
  TempDir t("fix_eol");
  struct Case { std::string before, after; };
  for (const Case& c : {Case{"a = 1\r\nb = 2\r\n", "a = 1\r\nsync()\r\nb = 2\r\n"},
                        Case{"a = 1\rb = 2\r", "a = 1\rsync()\rb = 2\r"},
                        Case{"\xef\xbb\xbf" "a = 1\n", "\xef\xbb\xbf" "sync()\na = 1\n"}}) {
    const std::string f = t.write("e.py", c.before);
    const uint32_t line = c.before.starts_with("\xef") ? 1 : 2;
    sl::Finding ins{"SL501", sl::Severity::Warning, f, {line, 1}, "msg", {}, {}};
    ins.fixes.push_back({"sync", {{{line, 1}, {line, 1}, "sync()\n"}}});
    sl::FixRun run = sl::planFixes({ins}, {{f, digestOf(f)}}, {t.dir.string()});
    ASSERT_EQ(run.files.size(), 1u);
    EXPECT_EQ(fixedText(run.files.at(f)), c.after);
  }
}

// A file reached through a symlink that leads out of the checked tree is not written.
TEST(FixApply, ASymlinkOutOfTheTreeIsRefused) {
  TempDir t("fix_link");
  const std::string target = t.write("outside/a.py", "x.default_stream()\n");
  std::filesystem::create_directories(t.dir / "tree");
  const std::string link = (t.dir / "tree/a.py").string();
  std::filesystem::create_symlink(target, link);
  sl::FixRun run = sl::planFixes({replacing(link, 1, 2)}, {{link, digestOf(link)}}, {(t.dir / "tree").string()});
  EXPECT_TRUE(run.files.empty());
  ASSERT_EQ(run.refused.size(), 1u);
  EXPECT_NE(run.refused[0].find("symlink leading out"), std::string::npos);
  // Inside the tree, a symlink is written through as any file is.
  run = sl::planFixes({replacing(link, 1, 2)}, {{link, digestOf(link)}}, {t.dir.string()});
  EXPECT_EQ(run.files.size(), 1u);
}

// Positions outside the text (a damaged cache entry's line 0, a column past the line) are
// dropped by both the writer and the diff, never read out of bounds.
TEST(TextEdits, PositionsOutsideTheTextAreDropped) {
  const std::string text = "a\nb\n";
  for (const sl::Edit& e : {sl::Edit{{0, 1}, {0, 2}, "x"}, sl::Edit{{0, 0}, {1, 1}, "x"},
                            sl::Edit{{1, 9}, {1, 9}, "x"}, sl::Edit{{7, 1}, {7, 2}, "x"},
                            sl::Edit{{2, 1}, {1, 1}, "x"}}) {
    size_t skipped = 0;
    EXPECT_EQ(sl::applyEdits(text, {e}, &skipped), text);
    EXPECT_EQ(skipped, 1u);
    EXPECT_EQ(sl::unifiedDiff("a.py", text, {e}), "");
  }
  // The position just past the last newline (an insertion at the end) is inside.
  EXPECT_EQ(sl::applyEdits(text, {{{3, 1}, {3, 1}, "c\n"}}), "a\nb\nc\n");
}
