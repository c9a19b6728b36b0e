// compat/glibc_floor*.c and the link against glibc_stubs.py's stand-ins (SL_GLIBC_FLOOR): this
// test is linked the way the shipped binaries are, so it checks them from the inside. On this
// machine's glibc it runs the legacy start-up path that glibc < 2.34 always takes (sl_start
// passes an initialiser), and the stat functions go through glibc's __xstat family as they must
// on glibc < 2.33; packaging.old_glibc runs the real binaries on glibc 2.31.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <thread>

namespace {

int g_constructorRuns = 0;
__attribute__((constructor)) void countConstructorRun() { ++g_constructorRuns; }
struct Global {
  int runs = 0;
  Global() { ++runs; }
} g_global;

struct stat kernelStat(int dirfd, const char* path, int flags) {
  struct stat st {};
  EXPECT_EQ(syscall(SYS_newfstatat, dirfd, path, &st, flags), 0) << path;
  return st;
}

void expectSame(const struct stat& a, const struct stat& b, const std::string& what) {
  EXPECT_EQ(a.st_dev, b.st_dev) << what;
  EXPECT_EQ(a.st_ino, b.st_ino) << what;
  EXPECT_EQ(a.st_mode, b.st_mode) << what;
  EXPECT_EQ(a.st_size, b.st_size) << what;
  EXPECT_EQ(a.st_mtim.tv_sec, b.st_mtim.tv_sec) << what;
}

std::string run(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  return out;
}

}  // namespace

TEST(GlibcFloor, ConstructorsRunOnce) {
  EXPECT_EQ(g_constructorRuns, 1);
  EXPECT_EQ(g_global.runs, 1);
}

TEST(GlibcFloor, StatFunctionsAgreeWithTheKernel) {
  char dir[] = "/tmp/sl-floor-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string file = std::string(dir) + "/f", link = std::string(dir) + "/l";
  std::ofstream(file) << "twelve bytes";
  ASSERT_EQ(symlink(file.c_str(), link.c_str()), 0);
  struct stat st {};
  ASSERT_EQ(stat(file.c_str(), &st), 0);
  expectSame(st, kernelStat(AT_FDCWD, file.c_str(), 0), "stat");
  EXPECT_EQ(st.st_size, 12);
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  expectSame(st, kernelStat(AT_FDCWD, link.c_str(), AT_SYMLINK_NOFOLLOW), "lstat");
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  int fd = open(file.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fstat(fd, &st), 0);
  expectSame(st, kernelStat(AT_FDCWD, file.c_str(), 0), "fstat");
  int dfd = open(dir, O_RDONLY | O_DIRECTORY);
  ASSERT_EQ(fstatat(dfd, "l", &st, AT_SYMLINK_NOFOLLOW), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(stat((std::string(dir) + "/missing").c_str(), &st), -1);
  EXPECT_EQ(errno, ENOENT);
  close(fd);
  close(dfd);
  unlink(link.c_str());
  unlink(file.c_str());
  rmdir(dir);
}

TEST(GlibcFloor, ThreadsAndDlopenWork) {
  int seen = 0;
  std::thread([&] { seen = 7; }).join();
  EXPECT_EQ(seen, 7);
  void* m = dlopen("libm.so.6", RTLD_NOW);
  ASSERT_NE(m, nullptr) << dlerror();
  EXPECT_NE(dlsym(m, "cos"), nullptr);
}

// What the dynamic loader of an old glibc checks: no symbol version newer than the floor, and
// the libraries that held pthread and dl functions before glibc 2.34 named as needed.
TEST(GlibcFloor, TheBinaryAsksNoNewerGlibc) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);  // this binary, not objdump's
  ASSERT_GT(n, 0);
  self[n] = 0;
  std::string syms = run(std::string("objdump -T '") + self + "'");
  ASSERT_FALSE(syms.empty()) << "objdump failed";
  std::regex version(R"(GLIBC_2\.(\d+))");
  int newest = 0;
  for (std::sregex_iterator it(syms.begin(), syms.end(), version), end; it != end; ++it)
    newest = std::max(newest, std::stoi((*it)[1]));
  EXPECT_LE(newest, SL_GLIBC_FLOOR_MINOR);
  std::string needed = run(std::string("objdump -p '") + self + "'");
  EXPECT_NE(needed.find("NEEDED               libpthread.so.0"), std::string::npos);
  EXPECT_NE(needed.find("NEEDED               libdl.so.2"), std::string::npos);
}
