#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "TempDir.h"
#include "core/AtomicWrite.h"

namespace fs = std::filesystem;

namespace {
size_t tempFilesIn(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(sl::kAtomicTempMarker) != std::string::npos) ++n;
  return n;
}
}  // namespace

TEST(AtomicWrite, ReplacesTheFileAndKeepsItsMode) {
  TempDir t("atomic_mode");
  const std::string f = t.write("a.py", "old\n");
  ::chmod(f.c_str(), 0751);
  std::string err;
  ASSERT_TRUE(sl::writeFileAtomically(f, "new text\r\n", err)) << err;
  EXPECT_EQ(readWhole(f), "new text\r\n");
  struct stat st{};
  ::stat(f.c_str(), &st);
  EXPECT_EQ(st.st_mode & 07777, 0751u);
  EXPECT_EQ(tempFilesIn(t.dir), 0u);
  // A new file is created.
  ASSERT_TRUE(sl::writeFileAtomically((t.dir / "b.json").string(), "{}", err)) << err;
  EXPECT_EQ(readWhole(t.dir / "b.json"), "{}");
}

TEST(AtomicWrite, WritesThroughASymlinkAndKeepsTheLink) {
  TempDir t("atomic_link");
  const std::string real = t.write("real.py", "old\n");
  fs::create_symlink(real, t.dir / "link.py");
  std::string err;
  ASSERT_TRUE(sl::writeFileAtomically((t.dir / "link.py").string(), "new\n", err)) << err;
  EXPECT_TRUE(fs::is_symlink(t.dir / "link.py"));
  EXPECT_EQ(readWhole(real), "new\n");
}

// A full disk (here: a file-size limit, which fails write() with EFBIG the same way ENOSPC
// does) leaves the old file whole and no temporary file behind.
TEST(AtomicWrite, AFailedWriteLeavesTheOldFile) {
  TempDir t("atomic_full");
  const std::string f = t.write("a.py", "def keep():\n    pass\n");
  struct rlimit old{};
  ::getrlimit(RLIMIT_FSIZE, &old);
  auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 8;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string err;
  const bool ok = sl::writeFileAtomically(f, std::string(4096, 'x'), err);
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, oldHandler);
  EXPECT_FALSE(ok);
  EXPECT_NE(err.find("cannot write"), std::string::npos) << err;
  EXPECT_EQ(readWhole(f), "def keep():\n    pass\n");
  EXPECT_EQ(tempFilesIn(t.dir), 0u);
}

TEST(AtomicWrite, RefusesWhatIsNotARegularFile) {
  std::string err;
  EXPECT_FALSE(sl::writeFileAtomically("/dev/null", "x", err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
  EXPECT_FALSE(sl::writeFileAtomically("/nonexistent-dir-sl/x.json", "x", err));
  EXPECT_NE(err.find("temporary file"), std::string::npos) << err;
}
