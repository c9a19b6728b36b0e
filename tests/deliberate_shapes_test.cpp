// Deliberate shapes of SL302 (driver/DeliberateShapes.h): each line of the rule folder's
// good.host_needs_value.py and good.once_per_call.py is a real finding, left out for the
// reason its shape gives (the rule examples only see that nothing is shown).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "TempDir.h"
#include "driver/Check.h"

namespace {

std::vector<std::pair<uint32_t, std::string>> hidden(const std::string& file) {
  sl::CheckOptions o;
  o.paths = {file};
  o.select = {"SL302"};
  o.jobs = 1;
  sl::CheckResult r = sl::runCheck(o);
  EXPECT_TRUE(r.findings.empty()) << file;
  std::vector<std::pair<uint32_t, std::string>> out;
  for (const auto& f : r.hiddenDeliberate) {
    std::string why = f.properties.value("deliberate", "");
    out.emplace_back(f.loc.line, why.substr(0, why.find(':')));
  }
  return out;
}

}  // namespace

TEST(DeliberateShapes, TheHostNeedsTheValues) {
  const std::string host = "the host needs the values", exit = "the host needs the value",
                    check = "a check (`assert`, or an `if` that only raises)";
  // Line 52 is an `assert`: a check before any shape is asked about.
  EXPECT_EQ(hidden("rules/SL302-host-sync-in-loop/good.host_needs_value.py"),
            (std::vector<std::pair<uint32_t, std::string>>{
                {11, host}, {12, host}, {15, host}, {22, host}, {30, exit}, {39, exit}, {50, exit}, {52, check}, {62, host}, {71, exit}}));
}

// Line 10 is reached through the module's text (the caller of `encode_prompt`, in a `__call__`
// whose signature spans three lines, named in its docstring too): the view of that text once
// dangled and found nothing, and a signature's closing `) -> list:` hid the `def`.
TEST(DeliberateShapes, OncePerCallOutsideTheSteppingLoop) {
  EXPECT_EQ(hidden("rules/SL302-host-sync-in-loop/good.once_per_call.py"),
            (std::vector<std::pair<uint32_t, std::string>>{
                {10, "once per call"},
                {21, "once per call"},
                {29, "once per call"},
                {36, "once per call"},
                {50, "one-time set-up"},
                {53, "one-time set-up"},
                {60, "one-time set-up `gather_cpu_state_dict`"},
                {61, "one-time set-up `gather_cpu_state_dict`"},
                {68, "one-time set-up `fsdp2_prepare_model`"},
                {76, "once per call"}}));
}

TEST(DeliberateShapes, AModuleNamedForLogging) {
  EXPECT_EQ(hidden("rules/SL302-host-sync-in-loop/good.logging_module/moe_logging.py"),
            (std::vector<std::pair<uint32_t, std::string>>{{9, "logging"}, {10, "logging"}}));
}

// The private helper of a constructor whose signature spans lines, named in a log message and
// a docstring: those mentions are prose, not calls or callbacks (torchrec's
// `_create_managed_collision_modules`, mentioned in a `logger.info(f"...")`).
TEST(DeliberateShapes, PrivateHelperOfAMultiLineConstructor) {
  TempDir t("deliberate_shapes_test");
  std::string src = t.write("proj/pkg/m.py",
                            "import torch\n"
                            "class A:\n"
                            "    def __init__(\n"
                            "        self, n\n"
                            "    ) -> None:\n"
                            "        \"\"\"Fills with `_fill`.\"\"\"\n"
                            "        self._fill(n)\n"
                            "        print(f\"_fill {n}\")\n"
                            "    def _fill(self, n):\n"
                            "        for _ in range(n):\n"
                            "            torch.ones(1, device='cuda').item()\n");  // 11: set-up, hidden
  sl::CheckOptions o;
  o.paths = {src};
  o.jobs = 1;
  sl::CheckResult r = sl::runCheck(o);
  EXPECT_TRUE(r.findings.empty());
  ASSERT_EQ(r.hiddenDeliberate.size(), 1u);
  EXPECT_EQ(r.hiddenDeliberate[0].loc.line, 11u);
  EXPECT_EQ(r.hiddenDeliberate[0].properties["deliberate"], "one-time set-up (called only from `__init__`)");
}
