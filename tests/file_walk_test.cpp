#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "driver/FileWalk.h"

namespace fs = std::filesystem;

namespace {
struct TempTree {
  fs::path root = fs::temp_directory_path() / ("sl_walk_" + std::to_string(::getpid()));
  TempTree() { fs::create_directories(root); }
  ~TempTree() { fs::remove_all(root); }
  void file(const std::string& rel, const std::string& text = "x = 1\n") {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  }
};
bool has(const std::vector<std::string>& v, const fs::path& p) {
  return std::find(v.begin(), v.end(), p.string()) != v.end();
}
}  // namespace

TEST(FileWalk, SkipsVcsVenvBuildAndGitignored) {
  TempTree t;
  t.file("a.py");
  t.file("k.cu", "");
  t.file(".git/hooks/x.py");
  t.file("env1/pyvenv.cfg", "");
  t.file("env1/lib/y.py");
  t.file("build/gen.py");
  t.file("gen/out.py");
  t.file(".gitignore", "gen/\n*.tmp.py\n");
  t.file("z.tmp.py");
  auto r = sl::walkInputs({t.root.string()});
  EXPECT_TRUE(has(r.python, t.root / "a.py"));
  EXPECT_TRUE(has(r.cpp, t.root / "k.cu"));
  EXPECT_EQ(r.python.size(), 1u);
  EXPECT_TRUE(r.errors.empty());
}

TEST(FileWalk, SymlinkLoopsAndMissingPathsAreErrorsNotHangs) {
  TempTree t;
  t.file("a.py");
  fs::create_directory_symlink(t.root, t.root / "loop");   // directory link: not followed
  fs::create_symlink(t.root / "b.py", t.root / "b.py");    // self-loop
  auto r = sl::walkInputs({t.root.string(), (t.root / "missing.py").string()});
  EXPECT_EQ(r.python.size(), 1u);
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_NE(r.errors[0].find("symlink loop"), std::string::npos);
  EXPECT_NE(r.errors[1].find("No such file"), std::string::npos);
}

// A file named twice (or named and under a named directory) is an input once: it was analysed
// twice, every finding doubled and `--fix` inserted its lines twice.
TEST(FileWalk, EachFileOnceHoweverItIsNamed) {
  TempTree t;
  t.file("a.py");
  t.file("k.cu", "");
  const std::string a = (t.root / "a.py").string(), dotted = (t.root / "." / "a.py").string();
  auto r = sl::walkInputs({a, a, dotted, t.root.string(), (t.root / "k.cu").string()});
  EXPECT_EQ(r.python, std::vector<std::string>{a});
  EXPECT_EQ(r.cpp.size(), 1u);
}

// Issue 32: a walk of `.` reports `src/a.py` as ruff does (SARIF and annotations strip `./`
// already), and knows which C/C++ files were named rather than walked.
TEST(FileWalk, NoDotSlashAndNamedCppFiles) {
  TempTree t;
  t.file("src/a.py");
  t.file("src/k.cpp", "");
  t.file("x.cu", "");
  const fs::path cwd = fs::current_path();
  fs::current_path(t.root);
  sl::WalkResult w = sl::walkInputs({".", "./x.cu"});
  fs::current_path(cwd);
  EXPECT_EQ(w.python, (std::vector<std::string>{"src/a.py"}));
  EXPECT_EQ(w.cpp, (std::vector<std::string>{"src/k.cpp", "x.cu"}));
  EXPECT_EQ(w.cppNamed.count("x.cu"), 1u);
  EXPECT_EQ(w.cppNamed.count("src/k.cpp"), 0u);
}
