// The deliberate-code policy table (driver/DeliberatePolicy.h): each entry says what and why,
// the user documentation lists every entry, and the entries added for issue 31 hide what they
// say (a script's entry point, tests and references inside library modules, one-off script
// directories, logging helpers called only every N steps) and nothing else.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "TempDir.h"
#include "driver/Check.h"
#include "driver/DeliberatePolicy.h"

namespace fs = std::filesystem;

namespace {

// "LINE RULE" of the shown findings and "LINE RULE reason" of the hidden ones.
std::pair<std::vector<std::string>, std::vector<std::string>> check(const std::vector<std::string>& paths) {
  sl::CheckOptions o;
  o.paths = paths;
  o.jobs = 1;
  o.select = {"SL302"};
  sl::CheckResult r = sl::runCheck(o);
  std::vector<std::string> shown, hidden;
  for (const auto& f : r.findings) shown.push_back(std::to_string(f.loc.line) + " " + f.ruleId);
  for (const auto& f : r.hiddenDeliberate)
    hidden.push_back(std::to_string(f.loc.line) + " " + f.ruleId + " " + f.properties["deliberate"].get<std::string>());
  return {shown, hidden};
}

}  // namespace

TEST(DeliberatePolicy, EveryEntrySaysWhatAndWhyAndIsDocumented) {
  std::set<std::string> ids;
  std::ifstream in("docs/deliberate-code.md");  // unit tests run in the source directory
  std::stringstream doc;
  doc << in.rdbuf();
  ASSERT_FALSE(doc.str().empty()) << "docs/deliberate-code.md";
  for (const auto& e : sl::deliberatePolicy()) {
    EXPECT_TRUE(ids.insert(e.id).second) << e.id;
    EXPECT_GT(std::string(e.covers).size(), 10u) << e.id;
    EXPECT_GT(std::string(e.why).size(), 10u) << e.id;
    EXPECT_NE(doc.str().find("`" + std::string(e.id) + "`"), std::string::npos) << e.id << " is not in the docs";
  }
}

TEST(DeliberatePolicy, MainBlockButNotATrainingLoopInIt) {
  TempDir t("policy_test");
  fs::create_directories(t.dir / "proj/.git");
  std::string src = t.write("proj/pkg/kern.py",
                            "import torch\n"
                            "def run(x):\n"
                            "    return x * 2\n"
                            "if __name__ == \"__main__\":\n"
                            "    x = torch.zeros(4, device='cuda')\n"
                            "    for _ in range(3):\n"
                            "        v = run(x) + x.sum().item()\n"  // 7: the entry point, hidden
                            "    model = torch.nn.Linear(4, 4).cuda()\n"
                            "    for _ in range(3):\n"
                            "        loss = model(x).sum()\n"
                            "        loss.backward()\n"
                            "        v = loss.item()\n"  // 12: a training loop, shown
                            "for _ in range(3):\n"
                            "    torch.ones(1, device='cuda').item()\n");  // 14: not in the block, shown
  auto [shown, hidden] = check({src});
  EXPECT_EQ(shown, (std::vector<std::string>{"12 SL302", "14 SL302"}));
  EXPECT_EQ(hidden, (std::vector<std::string>{"7 SL302 a script's entry point (`if __name__ == \"__main__\":`)"}));
}

TEST(DeliberatePolicy, TestsAndReferencesInsideLibraryModules) {
  TempDir t("policy_test");
  fs::create_directories(t.dir / "proj/.git");
  std::string src = t.write("proj/pkg/attn.py",
                            "import torch\n"
                            "from pkg.kernels import rmsnorm\n"
                            "def attention(q):\n"
                            "    return q\n"
                            "def attention_ref(n):\n"
                            "    for _ in range(n):\n"
                            "        torch.ones(1, device='cuda').item()\n"  // 7: reference of attention, hidden
                            "def ref_rmsnorm(n):\n"
                            "    for _ in range(n):\n"
                            "        torch.ones(1, device='cuda').item()\n"  // 10: reference of an imported function, hidden
                            "def test_attention():\n"
                            "    q = torch.zeros(2, device='cuda')\n"
                            "    for _ in range(3):\n"
                            "        q.sum().item()\n"  // 14: a test, hidden
                            "def get_ref(n):\n"
                            "    for _ in range(n):\n"
                            "        torch.ones(1, device='cuda').item()\n");  // 17: names no function, shown
  auto [shown, hidden] = check({src});
  EXPECT_EQ(shown, (std::vector<std::string>{"17 SL302"}));
  EXPECT_EQ(hidden, (std::vector<std::string>{
                        "7 SL302 a reference implementation `attention_ref` (of `attention`)",
                        "10 SL302 a reference implementation `ref_rmsnorm` (of `rmsnorm`)",
                        "14 SL302 a test function `test_attention`",
                    }));
}

TEST(DeliberatePolicy, OneOffScriptDirectoriesKeepTrainingCode) {
  TempDir t("policy_test");
  fs::create_directories(t.dir / "proj/.git");
  const char* body =
      "import torch\n"
      "def prepare(xs):\n"
      "    for x in xs:\n"
      "        torch.ones(1, device='cuda').item()\n"  // 4: one-off, hidden
      "def train(model, xs, opt):\n"
      "    for x in xs:\n"
      "        loss = model(x).sum()\n"
      "        loss.backward()\n"
      "        opt.step()\n"
      "        print(loss.item())\n";  // 10: the training loop of a script, shown
  std::string script = t.write("proj/scripts/run.py", body);
  auto [shown, hidden] = check({script});
  EXPECT_EQ(shown, (std::vector<std::string>{"10 SL302"}));
  EXPECT_EQ(hidden, (std::vector<std::string>{"4 SL302 scripts/ (a one-off script)"}));
  // A package of that name is library code: `envs/maniskill/tasks/` runs every environment step.
  t.write("proj/envs/tasks/__init__.py", "");
  auto [pkgShown, pkgHidden] = check({t.write("proj/envs/tasks/run.py", body)});
  EXPECT_EQ(pkgShown, (std::vector<std::string>{"4 SL302", "10 SL302"}));
  EXPECT_TRUE(pkgHidden.empty());
  std::string library = t.write("proj/pkg/run.py", body);
  auto [libShown, libHidden] = check({library});
  EXPECT_EQ(libShown, (std::vector<std::string>{"4 SL302", "10 SL302"}));
  EXPECT_TRUE(libHidden.empty());
}

TEST(DeliberatePolicy, LoggingHelpersCalledOnlyUnderAnIntervalGuard) {
  TempDir t("policy_test");
  fs::create_directories(t.dir / "proj/.git");
  std::string src = t.write("proj/pkg/trainer.py",
                            "import torch\n"
                            "class Trainer:\n"
                            "    def train_step_logs(self, loss):\n"
                            "        return torch.ones(1, device='cuda').item()\n"  // 4: every log_every steps, hidden
                            "    def train_step_stats(self, loss):\n"
                            "        return torch.ones(1, device='cuda').item()\n"  // 6: also called every step, shown
                            "    def fit(self, model, xs, opt, log_every):\n"
                            "        for step, x in enumerate(xs):\n"
                            "            loss = model(x).sum()\n"
                            "            loss.backward()\n"
                            "            opt.step()\n"
                            "            if step % log_every == 0:\n"
                            "                self.train_step_logs(loss)\n"
                            "                self.train_step_stats(loss)\n"
                            "            self.train_step_stats(loss)\n");
  auto [shown, hidden] = check({src});
  EXPECT_EQ(shown, (std::vector<std::string>{"6 SL302"}));
  EXPECT_EQ(hidden, (std::vector<std::string>{"4 SL302 logging: called only under an interval guard (in `fit()`)"}));
}
