// The Python prefilter (analyzer/python/PyPrefilter.h) must never change a finding: each case
// here is checked both ways (prefilter on and off) through the whole check, including flows
// the prefilter has to follow (self attributes set in another method, globals, callee
// summaries, function-local imports, configured helpers). bench/python/compare_prefilter.py
// does the same on real projects.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "driver/Check.h"
#include "driver/FileWalk.h"
#include "python/PyPrefilter.h"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path root = fs::temp_directory_path() / ("sl_prefilter_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(root); }
  ~TempDir() { fs::remove_all(root); }
  void file(const std::string& rel, const std::string& text) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  }
};

std::vector<std::string> findings(const std::vector<std::string>& paths, bool prefilter,
                                  std::vector<std::string>* diagnostics = nullptr) {
  sl::CheckOptions o;
  o.paths = paths;
  o.prefilter = prefilter;
  o.checkDeliberateCode = true;  // notes in tests and benchmarks must survive the prefilter too
  o.jobs = 2;
  sl::CheckResult r = sl::runCheck(o);
  std::vector<std::string> out;
  for (const auto& f : r.findings)
    out.push_back(f.path + ":" + std::to_string(f.loc.line) + ":" + std::to_string(f.loc.col) + " " + f.ruleId + " " +
                  f.message);
  if (diagnostics)
    for (const auto& d : r.diagnostics) diagnostics->push_back(d.path + ":" + std::to_string(d.loc.line) + " " + d.ruleId);
  return out;
}

// Each file yields at least one finding, through a flow the prefilter must keep.
const std::pair<const char*, const char*> kCases[] = {
    {"attr_from_init.py",  // the buffer's device comes through a local in __init__
     "import torch\n"
     "class M:\n"
     "    def __init__(self):\n"
     "        dev = torch.device('cuda')\n"
     "        self.buf = torch.zeros(4, device=dev)\n"
     "    def unrelated(self):\n"
     "        return [1, 2]\n"
     "    def step(self, n):\n"
     "        for _ in range(n):\n"
     "            if self.buf.sum() > 0:\n"
     "                pass\n"},
    {"host_attr_from_init.py",  // a host buffer set where nothing names CUDA, copied in a loop
     "import torch\n"
     "class M:\n"
     "    def __init__(self):\n"
     "        self.h = torch.zeros(4)\n"
     "    def step(self):\n"
     "        for _ in range(3):\n"
     "            y = self.h.cuda()\n"
     "            y.item()\n"},
    {"plain_local_import.py",  // a function-local import binds a factory another function uses
     "import torch\n"
     "def setup():\n"
     "    from torch import ones\n"
     "    return 1\n"
     "def f():\n"
     "    for _ in range(2):\n"
     "        ones(3, device='cuda').item()\n"},
    {"aliases.py",  // an aliased torch.cuda function and an Optional[Tensor] parameter
     "import torch\n"
     "from torch.cuda import current_device as cd\n"
     "def f():\n"
     "    for _ in range(2):\n"
     "        torch.ones(1, device=torch.device(cd())).item()\n"
     "def g(x: Optional[torch.Tensor] = None):\n"
     "    while x:\n"
     "        pass\n"},
    {"shadowed_print.py",  // a module function named print: calls of it read no tensor
     "import torch\n"
     "def print(*a):\n"
     "    return None\n"
     "def f(x: torch.Tensor):\n"
     "    x = x.cuda()\n"
     "    for _ in range(2):\n"
     "        print(x)\n"
     "        x.item()\n"},
    {"callee_summary.py",  // SL501 through a callee that has no loop and names no stream
     "import torch\n"
     "import time\n"
     "def work():\n"
     "    x = torch.ones(3, device='cuda')\n"
     "    return x * 2\n"
     "def other():\n"
     "    return 3\n"
     "def bench():\n"
     "    t0 = time.time()\n"
     "    work()\n"
     "    t1 = time.time()\n"
     "    return t1 - t0\n"},
    {"local_import.py",  // a function-local import binds the clock another function uses
     "import torch\n"
     "def setup():\n"
     "    import time as clock\n"
     "    return 1\n"
     "def measure(x: torch.Tensor):\n"
     "    s = clock.perf_counter()\n"
     "    y = x.cuda() * 2\n"
     "    e = clock.perf_counter()\n"
     "    return e - s\n"},
    {"integer_device.py",
     "import torch\n"
     "def f(n):\n"
     "    for i in range(n):\n"
     "        t = torch.zeros(2, device=0)\n"
     "        print(t)\n"
     "def g(h):\n"
     "    for i in range(3):\n"
     "        u = torch.ones(2).to(0)\n"
     "        u.item()\n"},
    {"global_device.py",
     "import torch\n"
     "DEV = torch.device('cuda')\n"
     "BUF = torch.empty(8, device=DEV)\n"
     "def f():\n"
     "    for _ in range(2):\n"
     "        torch.ones(1, device=DEV).item()\n"
     "def g():\n"
     "    while BUF.sum() > 0:\n"
     "        pass\n"},
    {"decorated_and_nested.py",
     "import torch\n"
     "def deco(f):\n"
     "    return f\n"
     "@deco\n"
     "class Outer:\n"
     "    class Inner:\n"
     "        def go(self, s):\n"
     "            with torch.cuda.stream(s):\n"
     "                torch.cuda.synchronize()\n"
     "    @staticmethod\n"
     "    @deco\n"
     "    def noise(x):\n"
     "        return (x,\n"
     "                '''a ( string\n"
     "                ''')\n"
     "    async def later(self):\n"
     "        return None\n"
     "@deco\n"
     "def side(x: torch.Tensor, s):\n"
     "    with torch.cuda.stream(s):\n"
     "        y = torch.empty_like(x)\n"
     "    return y\n"},
    {"fstring.py",
     "import torch\n"
     "def f(x: torch.Tensor):\n"
     "    x = x.to('cuda')\n"
     "    for i in range(3):\n"
     "        s = f'{x}'\n"
     "def quiet(a):\n"
     "    return 'the cuda stream'\n"},
    {"self_method_call.py",  // a method reached only through self.<name>() from a region
     "import torch\n"
     "class W:\n"
     "    def flush(self):\n"
     "        torch.cuda.synchronize()\n"
     "    def run(self, s):\n"
     "        with torch.cuda.stream(s):\n"
     "            self.flush()\n"},
    {"broken_kept.py",  // a syntax error in kept code: everything is parsed again
     "import torch\n"
     "def ok(s):\n"
     "    with torch.cuda.stream(s):\n"
     "        torch.cuda.synchronize()\n"
     "def bad(:\n"
     "    pass\n"},
    {"hot_base_chain.py",  // forward runs every step through a base whose methods are all dropped
     "import torch\n"
     "import torch.nn as nn\n"
     "class Base(nn.Module):\n"
     "    def helper(self):\n"
     "        return 1\n"
     "class Net(Base):\n"
     "    def forward(self, x):\n"
     "        t = torch.zeros(1, device='cuda')\n"
     "        return t.item()\n"},
    {"hot_hook_elsewhere.py",  // the registration that makes `stats` hot is in a unit without evidence
     "import torch\n"
     "def stats(module, inputs, output):\n"
     "    t = torch.zeros(1, device='cuda')\n"
     "    if t.item() > 0: output.zero_()\n"
     "def install(model):\n"
     "    model.register_forward_hook(stats)\n"},
    {"hot_hook_method.py",  // a method registered through functools.partial in __init__, among dropped code
     "import functools\n"
     "import torch\n"
     "def unrelated(a):\n"
     "    return a * 2\n"
     "class Probe:\n"
     "    def __init__(self, model):\n"
     "        model.register_forward_hook(functools.partial(self._record, name='m'))\n"
     "    def other(self):\n"
     "        return 3\n"
     "    def _record(self, module, inputs, output, name):\n"
     "        t = torch.ones(1, device='cuda')\n"
     "        return t.item()\n"},
    {"hot_hook_helper.py",  // a hook's helper holds the evidence and the host read
     "import torch\n"
     "def unrelated(a):\n"
     "    return a * 2\n"
     "def norm(t):\n"
     "    x = torch.ones(1, device='cuda')\n"
     "    return x.norm().item()\n"
     "def check(grad):\n"
     "    return norm(grad)\n"
     "def install(p):\n"
     "    p.register_hook(check)\n"},
    {"hot_patched_forward.py",  // a function patched in as a class's forward, in a function
     "import torch\n"
     "def unrelated(a):\n"
     "    return a * 2\n"
     "def fast_forward(self, x):\n"
     "    t = torch.zeros(1, device='cuda')\n"
     "    return x + t.item()\n"
     "def patch(mod):\n"
     "    mod.Attention.forward = fast_forward\n"},
    {"hot_nested_class.py",  // a Module nested in a class shell
     "import torch\n"
     "from torch import nn\n"
     "class Outer:\n"
     "    class Inner(nn.Module):\n"
     "        def forward(self, x):\n"
     "            t = torch.ones(1, device='cuda')\n"
     "            return t.item()\n"},
    {"forward_input_read.py",  // a host read of forward's input, no CUDA word in forward
     "import torch\n"
     "from torch import nn\n"
     "def unrelated(a):\n"
     "    return a * 2\n"
     "class Cached(nn.Module):\n"
     "    def forward(self, q, cache):\n"
     "        end = cache['end'].item()\n"
     "        cache['k'][:end] = q\n"
     "        return q\n"
     "class Other(nn.Module):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.flag = torch.zeros(1, device='cuda')\n"},
    {"accelerator_device.py",  // DeepSpeed's accelerator names the device: a blocking copy per item
     "import torch\n"
     "import deepspeed.comm as dist\n"
     "from deepspeed.accelerator import get_accelerator\n"
     "def unrelated(a):\n"
     "    return a * 2\n"
     "def gather(norm):\n"
     "    world_size = dist.get_world_size()\n"
     "    out = [torch.zeros(1).to(get_accelerator().device_name()) for i in range(world_size)]\n"
     "    dist.all_gather(out, norm)\n"},
    {"hot_by_name.py",  // per-step by its name alone, with evidence but no loop
     "import torch\n"
     "def predict_step(batch):\n"
     "    t = torch.zeros(4).cuda()\n"
     "    return t + batch\n"},
    {"wrapper/.streamlint.toml", "[stream-wrappers]\n\"acc.side\" = \"torch.cuda.stream\"\n"},
    {"wrapper/uses_wrapper.py",  // a configured stream wrapper names the region
     "import torch\n"
     "import acc\n"
     "def f(s):\n"
     "    with acc.side(s):\n"
     "        torch.cuda.synchronize()\n"},
};

}  // namespace

TEST(PythonPrefilter, SameFindingsOnTrickyFlows) {
  TempDir t;
  for (const auto& [name, text] : kCases) t.file(name, text);
  for (const auto& [name, text] : kCases) {
    if (std::string(name).ends_with(".toml")) continue;
    std::string path = (t.root / name).string();
    auto off = findings({path}, false);
    auto on = findings({path}, true);
    EXPECT_FALSE(off.empty()) << name << ": the case should produce a finding";
    EXPECT_EQ(on, off) << name;
  }
}

// A helper that per-step code in another file hands GPU tensors runs every step
// (driver/HotHelpers.h); nothing in its own file keeps it, so its module is lowered again.
TEST(PythonPrefilter, SameFindingsForHelpersOfOtherFiles) {
  TempDir t;
  t.file("proj/pkg/__init__.py", "from .pads import pad_rows\n");
  t.file("proj/pkg/pads.py",
         "import torch\n"
         "def unused(x):\n"
         "    return x\n"
         "def pad_rows(x: torch.Tensor):\n"
         "    assert x.is_cuda\n"
         "    n = int(x.sum().item())\n"
         "    return x.new_zeros(n)\n");
  t.file("proj/pkg/layer.py",
         "import torch\n"
         "from pkg import pad_rows\n"
         "class L(torch.nn.Module):\n"
         "    def forward(self, x: torch.Tensor):\n"
         "        return pad_rows(x.cuda())\n");
  std::string root = (t.root / "proj").string();
  auto off = findings({root}, false);
  auto on = findings({root}, true);
  EXPECT_EQ(off.size(), 1u);
  EXPECT_EQ(on, off);
}

TEST(PythonPrefilter, SameFindingsOnTheRepositoryExamples) {
  std::vector<std::string> py = sl::walkInputs({"examples", "rules"}).python;  // C++ is not filtered
  auto off = findings(py, false);
  auto on = findings(py, true);
  EXPECT_GT(off.size(), 20u);
  EXPECT_EQ(on, off);
}

namespace {

// The plan of `text` parses the imports and the code from `keptFrom` to the end, and drops
// only the `plain` function between them.
void expectOnlyPlainDropped(const std::string& text, const char* keptFrom,
                            const std::vector<std::string>* roots = nullptr) {
  sl::py::ParsePlan p = sl::py::planParse(text, sl::ProjectKnowledge{}, true, roots);
  ASSERT_EQ(p.mode, sl::py::ParsePlan::Mode::Ranges) << text;
  ASSERT_EQ(p.ranges.size(), 2u) << text;
  EXPECT_EQ(p.ranges[0].end_byte, text.find("def plain")) << text;
  EXPECT_EQ(p.ranges[1].start_byte, text.find(keptFrom)) << text;
  EXPECT_EQ(p.ranges[1].end_byte, text.size()) << text;
}

}  // namespace

TEST(PythonPrefilter, PlansOnlyWhatCanMatter) {
  using Mode = sl::py::ParsePlan::Mode;
  sl::ProjectKnowledge none;
  std::string mixed =
      "import torch\n"
      "def plain(a, b):\n"
      "    return a + b\n"
      "def region(s):\n"
      "    with torch.cuda.stream(s):\n"
      "        pass\n";
  auto p = sl::py::planParse(mixed, none, true);
  ASSERT_EQ(p.mode, Mode::Ranges);
  ASSERT_EQ(p.ranges.size(), 2u);
  EXPECT_EQ(p.ranges[0].end_byte, mixed.find("def plain"));
  EXPECT_EQ(p.ranges[1].start_byte, mixed.find("def region"));
  EXPECT_EQ(p.ranges[1].start_point.row, 3u);
  // A hook registration no longer makes the whole file parsed: code it cannot make hot is
  // dropped; the hook and the unit registering it are kept.
  std::string hooked =
      "import torch\n"
      "def plain(a, b):\n"
      "    return a + b\n"
      "def hook(m, i, o):\n"
      "    return torch.zeros(1, device='cuda').item()\n"
      "def install(model):\n"
      "    model.register_forward_hook(hook)\n";
  expectOnlyPlainDropped(hooked, "def hook");
  // A loop over what a CUDA helper of this file returns is kept with the helper (the callee's
  // summary says it returns a CUDA value; a finding there is less certain, so checked here by
  // the plan: low confidence turns the prefilter off).
  std::string loopOverHelper =
      "import torch\n"
      "def plain(a, b):\n"
      "    return a + b\n"
      "def run_case(n):\n"
      "    return torch.ones(n, device='cuda')\n"
      "def check_cases(ref):\n"
      "    for n in (1, 2, 3):\n"
      "        assert torch.equal(run_case(n), ref)\n";
  expectOnlyPlainDropped(loopOverHelper, "def run_case");
  // A helper that per-step code in another file calls is kept when named as a root, with what
  // its lowering reads (driver/HotHelpers.h), even with nothing in its own file to keep it.
  std::string helper =
      "import torch\n"
      "def plain(a, b):\n"
      "    return a + b\n"
      "def pad_rows(x):\n"
      "    return x.new_zeros(int(x.sum()))\n";
  EXPECT_EQ(sl::py::planParse(helper, none, true).mode, Mode::Skip);
  const std::vector<std::string> roots{"pad_rows"};
  expectOnlyPlainDropped(helper, "def pad_rows", &roots);
  // Nothing can produce a finding: not parsed at all.
  EXPECT_EQ(sl::py::planParse("import torch\ndef f(x):\n    return torch.relu(x)\n", none, true).mode, Mode::Skip);
  // Unsure of the structure (an unterminated string): the whole file is parsed.
  EXPECT_EQ(sl::py::planParse("import torch\nx = 'abc\n", none, true).mode, Mode::Whole);
  EXPECT_EQ(sl::py::planParse("def f(:\n", none, false).mode, Mode::Whole);
  EXPECT_EQ(sl::py::planParse("def f():\n    pass\n", none, false).mode, Mode::Skip);
}

TEST(PythonPrefilter, KeepsSyntaxErrorsThatTheScanSees) {
  TempDir t;
  t.file("broken.py", "def f(:\n");  // no torch at all: only the scan looks at it
  std::vector<std::string> diags;
  findings({(t.root / "broken.py").string()}, true, &diags);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_NE(diags[0].find("parse-error"), std::string::npos);
}
