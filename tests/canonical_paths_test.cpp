#include <gtest/gtest.h>

#include <filesystem>

#include "TempDir.h"
#include "core/CanonicalPaths.h"

namespace fs = std::filesystem;

namespace {
std::string library(const std::string& p) {
  std::error_code ec;
  return fs::weakly_canonical(fs::absolute(p, ec), ec).string();
}
}  // namespace

// The cache answers what fs::weakly_canonical(fs::absolute(path)) does, for every shape of
// path a walk or a command line gives: plain, relative, through a symlinked directory, a
// symlinked file (resolved to its target, not its link's directory), missing, `..`.
TEST(CanonicalPaths, AgreesWithTheLibrary) {
  TempDir t("canon");
  const std::string real = t.write("real/pkg/m.py", "x = 1\n");
  t.write("other/target.py", "y = 2\n");
  fs::create_directory_symlink(t.dir / "real", t.dir / "linkdir");
  fs::create_symlink(t.dir / "other/target.py", t.dir / "real/pkg/alias.py");
  const std::string base = t.dir.string();
  sl::CanonicalPaths canon;
  for (const std::string& p :
       {real, base + "/linkdir/pkg/m.py", base + "/real/pkg/alias.py", base + "/linkdir/pkg/alias.py",
        base + "/real/pkg/missing.py", base + "/real/pkg/../pkg/m.py", base + "/real/pkg/.", base + "/real/pkg/..",
        base + "/real//pkg/m.py"}) {
    EXPECT_EQ(canon.file(p), library(p)) << p;
    EXPECT_EQ(canon.file(p), library(p)) << p << " (cached)";
  }
  EXPECT_EQ(canon.file(base + "/real/pkg/alias.py"), (t.dir / "other/target.py").string());
  // Relative to the current directory.
  const fs::path cwd = fs::current_path();
  fs::current_path(t.dir / "real");
  EXPECT_EQ(canon.file("pkg/m.py"), real);
  EXPECT_EQ(sl::CanonicalPaths().file("m.py"), library("m.py"));
  fs::current_path(cwd);
}
