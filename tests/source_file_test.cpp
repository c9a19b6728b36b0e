#include <gtest/gtest.h>

#include "TempDir.h"
#include "core/SourceFile.h"

// load() reads every file into memory and converts what needs it; every kind must give the same
// text and lines, and the text must outlive copies and moves of the SourceFile.
TEST(SourceFile, LoadsMappedEmptyCrAndDeclaredEncodings) {
  TempDir t("srcfile");
  std::string err;
  auto plain = sl::SourceFile::load(t.write("a.py", "x = 1\ny = 2\n"), err);
  ASSERT_TRUE(plain) << err;
  EXPECT_EQ(plain->text(), "x = 1\ny = 2\n");
  EXPECT_EQ(plain->lineCount(), 2u);
  EXPECT_EQ(plain->line(2), "y = 2");
  std::optional<sl::SourceFile> copy = plain;  // shares the text
  plain.reset();
  EXPECT_EQ(copy->line(1), "x = 1");

  auto empty = sl::SourceFile::load(t.write("e.py", ""), err);
  ASSERT_TRUE(empty) << err;
  EXPECT_EQ(empty->text(), "");

  auto cr = sl::SourceFile::load(t.write("cr.py", "a = 1\rb = 2\r\nc = 3\r"), err);
  ASSERT_TRUE(cr) << err;
  EXPECT_EQ(cr->text(), "a = 1\nb = 2\r\nc = 3\n");  // lone CRs end lines; CRLF is kept
  EXPECT_EQ(cr->line(2), "b = 2");
  EXPECT_EQ(cr->lineCount(), 3u);

  auto latin = sl::SourceFile::load(t.write("l.py", "# -*- coding: latin-1 -*-\ns = '\xe9'\n"), err);
  ASSERT_TRUE(latin) << err;
  EXPECT_EQ(latin->line(2), "s = '\xc3\xa9'");

  EXPECT_FALSE(sl::SourceFile::load(t.write("b.py", std::string("x\0y", 3)), err));
  EXPECT_NE(err.find("NUL"), std::string::npos) << err;
  EXPECT_FALSE(sl::SourceFile::load(t.write("u.py", "s = '\xff'\n"), err));
  EXPECT_NE(err.find("not valid UTF-8"), std::string::npos) << err;
  EXPECT_FALSE(sl::SourceFile::load((t.dir / "missing.py").string(), err));
  EXPECT_FALSE(sl::SourceFile::load(t.dir.string(), err));
  EXPECT_EQ(err, "not a regular file");
}

// Sources are read into memory, not mapped: a file truncated by another process while a check
// holds it (an editor saving, a `git checkout`) once killed the run with SIGBUS on access.
TEST(SourceFile, ATruncatedFileCannotCrashAReader) {
  TempDir t("srcfile_trunc");
  const std::string path = t.write("big.py", std::string(3 * 4096, 'x') + "\n");
  std::string err;
  auto file = sl::SourceFile::load(path, err);
  ASSERT_TRUE(file) << err;
  std::filesystem::resize_file(path, 0);
  size_t xs = 0;
  for (char c : file->text()) xs += c == 'x';
  EXPECT_EQ(xs, 3 * 4096u);
}
