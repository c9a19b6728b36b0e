// A closure called directly runs at its call (PyLowering.cpp inlineClosure): its enclosing
// function sees the closure's GPU work on its own names, and a performance note both report is
// shown once, as the closure reports it (driver/Check.cpp judge).
#include <gtest/gtest.h>

#include "TempDir.h"
#include "driver/Check.h"

TEST(ClosureInlining, AMissingForkAroundACalledClosure) {
  TempDir t("closure_test");
  std::string src = t.write("m.py",
                            "import torch\n"
                            "def push(a, ws, stream):\n"
                            "    with torch.cuda.stream(stream):\n"
                            "        ws.copy_(a, non_blocking=True)\n"
                            "def op(a, ws, s):\n"
                            "    a = a.to('cuda')\n"
                            "    def call():\n"
                            "        push(a, ws, s)\n"  // 8: reads `a` on s, no fork
                            "    call()\n"
                            "    torch.cuda.current_stream().wait_stream(s)\n"
                            "def op_forked(a, ws, s):\n"
                            "    a = a.to('cuda')\n"
                            "    s.wait_stream(torch.cuda.current_stream())\n"
                            "    def call():\n"
                            "        push(a, ws, s)\n"  // 16: forked first: nothing to report
                            "    call()\n"
                            "    torch.cuda.current_stream().wait_stream(s)\n");
  sl::CheckOptions o;
  o.paths = {src};
  o.jobs = 1;
  o.select = {"SL101"};
  sl::CheckResult r = sl::runCheck(o);
  std::vector<uint32_t> lines;
  for (const auto& f : r.findings) lines.push_back(f.loc.line);
  EXPECT_EQ(lines, (std::vector<uint32_t>{8}));
}

TEST(ClosureInlining, ANoteOfTheClosureIsShownOnce) {
  TempDir t("closure_test");
  std::string src = t.write("m.py",
                            "import torch\n"
                            "def f(xs):\n"
                            "    t = torch.ones(1, device='cuda')\n"
                            "    out = []\n"
                            "    def show():\n"
                            "        out.append(t.sum().item())\n"
                            "    for x in xs:\n"
                            "        show()\n"
                            "    return out\n");
  sl::CheckOptions o;
  o.paths = {src};
  o.jobs = 1;
  o.select = {"SL302"};
  sl::CheckResult r = sl::runCheck(o);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].loc.line, 6u);
  EXPECT_NE(r.findings[0].message.find("in `show()`"), std::string::npos) << r.findings[0].message;
}
