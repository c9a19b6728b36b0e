// Deliberate code (driver/DeliberateCode.h): which paths and functions hold it, judged from
// the project root, and that only performance notes are left out there.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "TempDir.h"
#include "driver/Check.h"
#include "driver/DeliberateCode.h"

namespace fs = std::filesystem;
using sl::deliberatePathReason;

TEST(DeliberateCode, PathsRelativeToTheRoot) {
  EXPECT_EQ(deliberatePathReason("tests/test_model.py"), "tests/");
  EXPECT_EQ(deliberatePathReason("pkg/tests/unit/helpers.py"), "tests/");
  EXPECT_EQ(deliberatePathReason("benchmarks/attn.py"), "benchmarks/");
  EXPECT_EQ(deliberatePathReason("bench/run.py"), "bench/");
  EXPECT_EQ(deliberatePathReason("examples/train.py"), "examples/");
  EXPECT_EQ(deliberatePathReason("test/csrc/a_test.cpp"), "test/");
  EXPECT_EQ(deliberatePathReason("pkg/test_ops.py"), "test_*.py");
  EXPECT_EQ(deliberatePathReason("pkg/ops_test.py"), "*_test.py");
  EXPECT_EQ(deliberatePathReason("csrc/kernels_test.cu"), "*_test.cu");
  EXPECT_EQ(deliberatePathReason("conftest.py"), "conftest.py");
  EXPECT_EQ(deliberatePathReason("archive/pkg/ops.py"), "archive/");  // old copies kept for reference
  EXPECT_EQ(deliberatePathReason("pkg/testing/cases.py"), "testing/");
  EXPECT_EQ(deliberatePathReason("tutorials/guide/train.py"), "tutorials/");
  EXPECT_EQ(deliberatePathReason("hopper/benchmark_attn.py"), "benchmark_*.py");
  EXPECT_EQ(deliberatePathReason("pkg/attn_bench.py"), "*_bench.py");
  EXPECT_EQ(deliberatePathReason("pkg/gptq_example.py"), "*_example.py");
  EXPECT_EQ(deliberatePathReason("scripts/numerical_tests_llama.py"), "*_tests_*.py");
  EXPECT_EQ(deliberatePathReason("scripts/convert_llama_to_hf.py"), "convert_*.py");
  EXPECT_EQ(deliberatePathReason("pkg/benchmark.py"), "");  // one word: a module of that name
  EXPECT_EQ(deliberatePathReason("pkg/converters.py"), "");
  EXPECT_EQ(deliberatePathReason("pkg/attestation_utils.py"), "");
  // Not deliberate: the training code, scripts (often the real entry points), look-alikes.
  EXPECT_EQ(deliberatePathReason("pkg/model.py"), "");
  // One-off script directories: deliberate outside training code (DeliberatePolicy.h), so the
  // path says which directory; a file's own name says more.
  EXPECT_EQ(deliberatePathReason("scripts/train.py"), "scripts/");
  EXPECT_EQ(deliberatePathReason("pkg/tools/convert.py"), "tools/");
  EXPECT_EQ(deliberatePathReason("tasks/eval/run.py"), "tasks/");
  EXPECT_EQ(deliberatePathReason("scripts/benchmark_attn.py"), "benchmark_*.py");
  EXPECT_EQ(deliberatePathReason("pkg/toolset/ops.py"), "");
  EXPECT_EQ(deliberatePathReason("pkg/testing_utils.py"), "");
  EXPECT_EQ(deliberatePathReason("pkg/latest.py"), "");
  EXPECT_EQ(deliberatePathReason("pkg/_test.py"), "");
  EXPECT_EQ(deliberatePathReason("tests"), "");  // a file named tests, not a directory
  // Outside the root: the directories above it say nothing about the project.
  EXPECT_EQ(deliberatePathReason("../tests/model.py"), "");
}

namespace {

// A loop of value reads (SL302, performance) and a wait on the default stream (SL103, correctness).
const char* kBoth =
    "import torch\n"
    "def f(s):\n"
    "    x = torch.zeros(2, device='cuda')\n"
    "    for _ in range(3):\n"
    "        x.item()\n"
    "    s.wait_stream(torch.cuda.default_stream())\n";

}  // namespace

TEST(DeliberateCode, FailureOnlyLinesAndFormattingMethods) {
  TempDir t("deliberate_test");
  std::string src = t.write("proj/pkg/m.py",
                            "import torch\n"
                            "def f(n):\n"
                            "    x = torch.zeros(2, device='cuda')\n"
                            "    for _ in range(n):\n"
                            "        if n < 0:\n"
                            "            raise ValueError(\n"
                            "                f'{x.item()}')\n"  // runs only on failure: hidden
                            "        x.item()\n"                // shown
                            "class C:\n"
                            "    def __repr__(self):\n"
                            "        x = torch.zeros(2, device='cuda')\n"
                            "        for _ in range(2):\n"
                            "            x.item()\n"            // formatting: hidden
                            "        return ''\n");
  sl::CheckOptions o;
  o.paths = {src};
  o.jobs = 1;
  sl::CheckResult r = sl::runCheck(o);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].loc.line, 8u);
  ASSERT_EQ(r.hiddenDeliberate.size(), 2u);
  EXPECT_EQ(r.hiddenDeliberate[0].loc.line, 7u);
  EXPECT_EQ(r.hiddenDeliberate[0].properties["deliberate"], "`raise`");
  EXPECT_EQ(r.hiddenDeliberate[1].loc.line, 13u);
  EXPECT_EQ(r.hiddenDeliberate[1].properties["deliberate"], "`__repr__`");
}

TEST(DeliberateCode, RootIsTheConfigThenGitThenNothing) {
  TempDir t("deliberate_test");
  sl::ProjectRoots roots;
  // No config, no git: the directories above the file mean nothing (the cwd is elsewhere).
  std::string inTests = t.write("proj/tests/a.py", "");
  EXPECT_EQ(roots.deliberateReason(inTests, ""), "");
  EXPECT_EQ(roots.deliberateReason(t.write("proj/pkg/test_a.py", ""), ""), "test_*.py");
  // ... unless proj is the directory given on the command line: then it is the root, whatever
  // the current directory (the same findings from anywhere).
  sl::ProjectRoots given;
  given.setInputs({(t.dir / "proj").string()});
  EXPECT_EQ(given.deliberateReason(inTests, ""), "tests/");
  given.setInputs({(t.dir / "proj/tests").string()});  // the input itself: tests/ is not inside it
  EXPECT_EQ(given.deliberateReason(inTests, ""), "");
  // A git work tree makes proj the root.
  fs::create_directories(t.dir / "proj/.git");
  sl::ProjectRoots withGit;
  EXPECT_EQ(withGit.deliberateReason(inTests, ""), "tests/");
  // A config directory comes first: a project nested in tests/ has its own root.
  std::string nested = t.write("proj/tests/fixture_project/src/m.py", "");
  EXPECT_EQ(withGit.deliberateReason(nested, (t.dir / "proj/tests/fixture_project").string()), "");
  EXPECT_EQ(withGit.deliberateReason(nested, ""), "tests/");
  // A config that does not contain the file (--config elsewhere) is passed over.
  EXPECT_EQ(withGit.deliberateReason(inTests, (t.dir / "elsewhere").string()), "tests/");
}

TEST(DeliberateCode, OnlyPerformanceNotesAreHiddenAndCounted) {
  TempDir t("deliberate_test");
  t.write("proj/.streamlint.toml", "select = [\"SL1\", \"SL3\"]\n");
  std::string test = t.write("proj/tests/test_train.py", kBoth);
  std::string src = t.write("proj/pkg/train.py", kBoth);
  sl::CheckOptions o;
  o.paths = {test, src};
  o.jobs = 1;
  sl::CheckResult r = sl::runCheck(o);
  std::vector<std::string> shown, hidden;
  for (const auto& f : r.findings) shown.push_back(fs::path(f.path).filename().string() + " " + f.ruleId);
  for (const auto& f : r.hiddenDeliberate)
    hidden.push_back(fs::path(f.path).filename().string() + " " + f.ruleId + " " + f.properties["deliberate"].get<std::string>());
  EXPECT_EQ(shown, (std::vector<std::string>{"train.py SL302", "train.py SL103", "test_train.py SL103"}));
  EXPECT_EQ(hidden, (std::vector<std::string>{"test_train.py SL302 tests/"}));
  // Asked for: everything is shown, nothing hidden.
  o.checkDeliberateCode = true;
  r = sl::runCheck(o);
  EXPECT_EQ(r.findings.size(), 4u);
  EXPECT_TRUE(r.hiddenDeliberate.empty());
  // The config's key does the same for the files it governs.
  t.write("proj/.streamlint.toml", "select = [\"SL1\", \"SL3\"]\ncheck-deliberate-code = true\n");
  o.checkDeliberateCode = false;
  r = sl::runCheck(o);
  EXPECT_EQ(r.findings.size(), 4u);
}

TEST(DeliberateCode, SetUpFunctionsButNotWhatTheyDefineToRunLater) {
  TempDir t("deliberate_test");
  std::string src = t.write("proj/pkg/m.py",
                            "import torch\n"
                            "class C(torch.nn.Module):\n"
                            "    def __init__(self, n):\n"
                            "        super().__init__()\n"
                            "        self.s = torch.zeros(1, device='cuda')\n"
                            "        for _ in range(n):\n"
                            "            self.s.item()\n"          // 7: set-up, hidden
                            "        def hook(g):\n"
                            "            return g * self.s.item()\n"  // 9: a hook, shown
                            "        self.s.register_hook(hook)\n"
                            "        def later():\n"
                            "            for _ in range(n):\n"
                            "                self.s.item()\n"      // 13: runs later, shown
                            "        self.later = later\n");
  sl::CheckOptions o;
  o.paths = {src};
  o.jobs = 1;
  sl::CheckResult r = sl::runCheck(o);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].loc.line, 9u);
  EXPECT_EQ(r.findings[1].loc.line, 13u);
  ASSERT_EQ(r.hiddenDeliberate.size(), 1u);
  EXPECT_EQ(r.hiddenDeliberate[0].loc.line, 7u);
  EXPECT_EQ(r.hiddenDeliberate[0].properties["deliberate"], "one-time set-up `__init__`");
}

// A private helper is set-up when every mention of it is a call made directly in set-up code;
// one call from elsewhere, from a closure, or a mention as a callback keeps its notes.
TEST(DeliberateCode, PrivateHelpersCalledOnlyFromSetUp) {
  TempDir t("deliberate_test");
  std::string src = t.write("proj/pkg/m.py",
                            "import torch\n"
                            "class A:\n"
                            "    def __init__(self, n):\n"
                            "        if n:\n"
                            "            self._fill(n)\n"
                            "    def _fill(self, n):\n"
                            "        for _ in range(n):\n"
                            "            torch.ones(1, device='cuda').item()\n"  // 8: set-up, hidden
                            "    def setup_more(self, n):\n"
                            "        def later():\n"
                            "            self._grow(n)\n"
                            "        self._grow(n)\n"
                            "    def _grow(self, n):\n"
                            "        for _ in range(n):\n"
                            "            torch.ones(1, device='cuda').item()\n"  // 15: a closure calls it, shown
                            "    def _shrink(self, n):\n"
                            "        for _ in range(n):\n"
                            "            torch.ones(1, device='cuda').item()\n"  // 18: a callback, shown
                            "    def setup_hooks(self, hooks):\n"
                            "        self._shrink(1)\n"
                            "        hooks.append(self._shrink)\n");
  sl::CheckOptions o;
  o.paths = {src};
  o.jobs = 1;
  sl::CheckResult r = sl::runCheck(o);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].loc.line, 15u);
  EXPECT_EQ(r.findings[1].loc.line, 18u);
  ASSERT_EQ(r.hiddenDeliberate.size(), 1u);
  EXPECT_EQ(r.hiddenDeliberate[0].loc.line, 8u);
  EXPECT_EQ(r.hiddenDeliberate[0].properties["deliberate"], "one-time set-up (called only from `__init__`)");
}
