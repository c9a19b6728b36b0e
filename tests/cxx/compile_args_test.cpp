// Compile-command handling: nvcc translation, compiler swap, defaults, database lookup.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cxx/CompileArgs.h"

using namespace sl::cxx;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Not;
namespace fs = std::filesystem;

TEST(SplitCommand, QuotesAndEscapesLikeAShell) {
  EXPECT_THAT(splitCommand(R"(nvcc -DNAME="a b" -I'/x y' a\ b.cu  -c)"),
              ElementsAre("nvcc", "-DNAME=a b", "-I/x y", "a b.cu", "-c"));
  EXPECT_THAT(splitCommand(R"(cc -DQ=\"s\" "")"), ElementsAre("cc", "-DQ=\"s\"", ""));
}

TEST(Nvcc, KeepsWhatParsesDropsTheRest) {
  // A command CMake 3.25 writes for a CUDA target (trimmed).
  std::vector<std::string> argv = splitCommand(
      "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -ccbin=/usr/bin/g++ "
      "-DUSE_X=1 -I/p/include -isystem /p/sys --expt-relaxed-constexpr --extended-lambda "
      "-O3 -std=c++17 \"--generate-code=arch=compute_90,code=[compute_90,sm_90]\" "
      "-gencode arch=compute_80,code=sm_80 -Xcompiler=-fPIC,-Wall,-DFROM_X -Xcudafe "
      "--diag_suppress=177 -rdc=true -x cu -MD -MT a.o -MF a.o.d -c /src/a.cu -o a.o");
  auto out = translateNvccArgs(argv, "/src/a.cu");
  EXPECT_THAT(out, ElementsAre("-DUSE_X=1", "-I/p/include", "-isystem", "/p/sys", "-O3",
                               "-std=c++17", "-fPIC", "-DFROM_X", "-x", "cuda"));
}

TEST(Nvcc, PerThreadDefaultStreamBecomesTheMacroNvccDefines) {
  auto out = translateNvccArgs({"nvcc", "--default-stream", "per-thread", "-c", "k.cu"}, "k.cu");
  EXPECT_THAT(out, ElementsAre("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1"));
  out = translateNvccArgs({"nvcc", "--default-stream=legacy", "k.cu"}, "k.cu");
  EXPECT_TRUE(out.empty());
}

TEST(Compiler, DropsOutputsAndDependencyFiles) {
  auto out = translateCompilerArgs(
      splitCommand("/usr/bin/c++ -DA -I inc -Wall -g -O2 -fPIC -MD -MT x.o -MF x.d -o x.o -c x.cpp"), "x.cpp");
  EXPECT_THAT(out, ElementsAre("-DA", "-I", "inc", "-Wall", "-O2", "-fPIC"));
}

TEST(Defaults, CudaFilesGetTheHostSideSetUp) {
  Toolchain tc;
  tc.resourceDir = "/rd";
  tc.cudaPath = "/cuda";
  tc.shimDir = "/shim";
  tc.libtorchIncludes = {"/t/include", "/t/include/torch/csrc/api/include"};
  tc.libtorchNeedsNoCmakeConfig = true;
  CompileJob cu = defaultJob("k.cu", tc, {"-DUSER"});
  EXPECT_TRUE(cu.cuda);
  EXPECT_EQ(cu.args.front(), "clang++");
  EXPECT_EQ(cu.args.back(), "k.cu");
  for (const char* a : {"--cuda-host-only", "--cuda-path=/cuda", "-resource-dir=/rd", "/cuda/include/cccl",
                        "/shim", "-Wno-unknown-cuda-version", "-DUSER", "/t/include", "-fsyntax-only",
                        "-DC10_CUDA_NO_CMAKE_CONFIGURE_FILE"})
    EXPECT_THAT(cu.args, Contains(std::string(a)));
  CompileJob cpp = defaultJob("x.cpp", tc, {});
  EXPECT_FALSE(cpp.cuda);
  EXPECT_THAT(cpp.args, Not(Contains(std::string("--cuda-host-only"))));
  EXPECT_THAT(cpp.args, Contains(std::string("/cuda/include")));  // cuda_runtime.h from .cpp
  CompileJob cuh = defaultJob("k.cuh", tc, {});
  EXPECT_TRUE(cuh.cuda);
}

class CompileDb : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("sl-cdb-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "compile_commands.json") << R"([
      {"directory": ")" << dir.string() << R"(", "file": "a.cu",
       "command": "/opt/cuda/bin/nvcc -DA -arch=sm_90 -c a.cu -o a.o"},
      {"directory": ")" << dir.string() << R"(", "file": ")" << (dir / "b.cpp").string() << R"(",
       "arguments": ["/usr/bin/g++", "-DB", "-c", "b.cpp"]},
      {"directory": "/x", "no-file": 1}
    ])";
    tc.resourceDir = "/rd";
    tc.cudaPath = "/cuda";
    tc.shimDir = "/shim";
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
  Toolchain tc;
};

TEST_F(CompileDb, AllEntriesWhenNoFilesAreGiven) {
  Request req;
  req.compileDbDir = dir.string();
  std::vector<sl::Finding> diags;
  auto jobs = planJobs(req, tc, diags);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_TRUE(diags.empty());
  EXPECT_EQ(jobs[0].file, (dir / "a.cu").string());
  EXPECT_TRUE(jobs[0].cuda);
  EXPECT_THAT(jobs[0].args, Contains(std::string("-DA")));
  EXPECT_THAT(jobs[0].args, Not(Contains(std::string("-arch=sm_90"))));
  // The toolkit is the one the nvcc of the entry belongs to.
  EXPECT_THAT(jobs[0].args, Contains(std::string("--cuda-path=/opt/cuda")));
  EXPECT_EQ(jobs[0].directory, dir.string());
  EXPECT_FALSE(jobs[1].cuda);
  EXPECT_THAT(jobs[1].args, Contains(std::string("-DB")));
}

TEST_F(CompileDb, GivenFilesUseTheirEntryOrDefaults) {
  Request req;
  req.compileDbDir = dir.string();
  req.files = {(dir / "a.cu").string(), "other.cu"};
  std::vector<sl::Finding> diags;
  auto jobs = planJobs(req, tc, diags);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_THAT(jobs[0].args, Contains(std::string("-DA")));
  EXPECT_THAT(jobs[1].args, Not(Contains(std::string("-DA"))));
  EXPECT_EQ(jobs[1].display, "other.cu");
}

TEST_F(CompileDb, AnUnreadableDatabaseIsAnInputError) {
  Request req;
  req.compileDbDir = (dir / "missing").string();
  std::vector<sl::Finding> diags;
  auto jobs = planJobs(req, tc, diags);
  EXPECT_TRUE(jobs.empty());
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].ruleId, "input-error");
  std::ofstream(dir / "bad.json") << "{ not json";
  req.compileDbDir = (dir / "bad.json").string();
  diags.clear();
  planJobs(req, tc, diags);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_THAT(diags[0].message, ::testing::HasSubstr("not a JSON array"));
}

// Found by fuzz_compiledb on the H200 (2026-12-02): a "directory" that is not a string (here a
// duplicate key whose last value, an array, wins) threw nlohmann's type_error out of `check`.
TEST_F(CompileDb, ADirectoryThatIsNotAStringIsAnInputError) {
  std::ofstream(dir / "dup.json") << R"([{"directory": "/src", "file": "k.cu", "command": "nvcc -c k.cu"},
    {"directory": "/src", "file": "m.cpp", "directory": ["c++", "-c", "m.cpp"], "command": "c++ -c m.cpp"}])";
  Request req;
  req.compileDbDir = (dir / "dup.json").string();
  std::vector<sl::Finding> diags;
  auto jobs = planJobs(req, tc, diags);
  EXPECT_TRUE(jobs.empty());
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].ruleId, "input-error");
  EXPECT_THAT(diags[0].message, ::testing::HasSubstr("entry 2: \"directory\" is not a string"));
}

TEST(Libtorch, FindsIncludeDirsInEveryLayout) {
  fs::path root = fs::temp_directory_path() / ("sl-lt-" + std::to_string(::getpid()));
  for (const char* layout : {"include", "usr/include", ""}) {
    fs::remove_all(root);
    fs::path inc = root / layout;
    fs::create_directories(inc / "torch/csrc/api/include/torch");
    std::ofstream(inc / "torch/csrc/api/include/torch/torch.h") << "";
    bool noCmake = false;
    auto dirs = findLibtorchIncludes(root.string(), "", noCmake);
    ASSERT_EQ(dirs.size(), 2u) << layout;
    EXPECT_TRUE(fs::equivalent(dirs[0], inc)) << dirs[0];
    EXPECT_TRUE(noCmake);  // no c10/cuda/impl/cuda_cmake_macros.h in this tree
  }
  bool noCmake = false;
  EXPECT_TRUE(findLibtorchIncludes((root / "nothing").string(), "", noCmake).empty());
  fs::remove_all(root);
}

// A torch installed in some prefix's site-packages wins over the fallback (the old Debian
// headers), and the newest Python's wins among several; --libtorch still overrides both.
TEST(Libtorch, PrefersAnInstalledTorchOverTheFallback) {
  fs::path root = fs::temp_directory_path() / ("sl-site-" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto fakeTorch = [&](const fs::path& include) {
    fs::create_directories(include / "torch/csrc/api/include/torch");
    std::ofstream(include / "torch/csrc/api/include/torch/torch.h") << "";
    fs::create_directories(include / "c10/cuda/impl");
    std::ofstream(include / "c10/cuda/impl/cuda_cmake_macros.h") << "";
  };
  fs::path venv = root / "venv", debian = root / "debian";
  fakeTorch(venv / "lib/python3.9/site-packages/torch/include");
  fakeTorch(venv / "lib/python3.12/site-packages/torch/include");
  fakeTorch(debian / "usr/include");
  fs::create_directories(root / "empty-prefix/lib/python3.11/site-packages");

  auto installed = installedTorchDirs({(root / "empty-prefix").string(), venv.string()}, false);
  ASSERT_EQ(installed.size(), 2u);
  EXPECT_EQ(installed[0], (venv / "lib/python3.12/site-packages/torch").string());

  bool noCmake = true;
  auto dirs = findLibtorchIncludes("", debian.string(), noCmake, installed);
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], (venv / "lib/python3.12/site-packages/torch/include").string());
  EXPECT_FALSE(noCmake);  // a real install has the CMake-generated macros header
  // Nothing installed: the fallback.
  dirs = findLibtorchIncludes("", debian.string(), noCmake, {});
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], (debian / "usr/include").string());
  // --libtorch DIR names the headers whatever is installed.
  dirs = findLibtorchIncludes(debian.string(), "", noCmake, installed);
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], (debian / "usr/include").string());
  fs::remove_all(root);
}

TEST(Defaults, LibtorchJobsGetPythonHeaders) {
  Toolchain tc;
  tc.resourceDir = "/rd";
  tc.pythonInclude = "/py/include/python3.11";
  CompileJob plain = defaultJob("x.cpp", tc, {});
  EXPECT_THAT(plain.args, Not(Contains(std::string("/py/include/python3.11"))));
  tc.libtorchIncludes = {"/t/include", "/t/include/torch/csrc/api/include"};
  CompileJob ext = defaultJob("x.cpp", tc, {});
  EXPECT_THAT(ext.args, Contains(std::string("/py/include/python3.11")));
}

TEST(CudaHeader, TensorMapGetsTheCuda12AlignmentForTheParser) {
  std::string h = "typedef struct CUtensorMap_st {\n#if defined(__cplusplus) && (__cplusplus >= 201103L)\n"
                  "    alignas(128)\n#elif __STDC_VERSION__ >= 201112L\n    _Alignas(128)\n#endif\n"
                  "    cuuint64_t opaque[16];\n} CUtensorMap;\nstruct alignas(128) Other {};\n";
  std::string out = relaxTensorMapAlignment(h);
  EXPECT_NE(out.find("alignas(64)\n#elif"), std::string::npos) << out;
  EXPECT_NE(out.find("_Alignas(64)"), std::string::npos) << out;
  EXPECT_NE(out.find("struct alignas(128) Other"), std::string::npos) << out;  // nothing else changes
  EXPECT_EQ(relaxTensorMapAlignment("typedef struct CUtensorMap_st { cuuint64_t opaque[16]; } CUtensorMap;"), "");
}

// `#include "pkg/csrc/x.h"` from pkg/csrc/ops/y.cpp, or "lib/z.h" under the repository's
// include/: found through the file's ancestors, up to the repository root and no further.
TEST(Defaults, ProjectHeadersAreSearchedLastFromTheFilesAncestors) {
  fs::path root = fs::temp_directory_path() / ("sl-proj-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::path repo = root / "repo";
  fs::create_directories(repo / ".git");
  fs::create_directories(repo / "include/lib");
  fs::create_directories(repo / "pkg/csrc/ops");
  std::ofstream(repo / "pkg/csrc/ops/y.cpp") << "";
  auto dirs = projectIncludeDirs((repo / "pkg/csrc/ops/y.cpp").string());
  EXPECT_THAT(dirs, ElementsAre((repo / "pkg/csrc/ops").string(), (repo / "pkg/csrc").string(),
                                (repo / "pkg").string(), repo.string(), (repo / "include").string()));
  Toolchain tc;
  tc.resourceDir = "/rd";
  CompileJob job = defaultJob((repo / "pkg/csrc/ops/y.cpp").string(), tc, {"-Iuser"});
  auto user = std::find(job.args.begin(), job.args.end(), "-Iuser");
  auto last = std::find(job.args.begin(), job.args.end(), "-idirafter");
  ASSERT_NE(last, job.args.end());
  EXPECT_LT(user, last);  // the user's flags come first
  EXPECT_EQ(*(last + 1), (repo / "pkg/csrc/ops").string());
  fs::remove_all(root);
}
