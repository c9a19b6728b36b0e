#include <gtest/gtest.h>
#include <map>

#include "model/ModelDump.h"
#include "python/PyConfigAttrs.h"
#include "python/PyHostProof.h"
#include "python/PythonFrontend.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace {
std::string lower(const std::string& code, std::vector<sl::Finding>* diags = nullptr) {
  std::vector<sl::Finding> d;
  sl::SourceFile f("t.py", code);
  auto m = sl::py::lowerPython(f, d);
  if (diags) *diags = d;
  return sl::model::dump(m);
}
bool contains(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }
}  // namespace

TEST(PythonFrontend, StreamRegionSpellings) {
  for (const char* code : {
           "import torch\ns = torch.cuda.Stream()\nwith torch.cuda.stream(s):\n  pass\n",
           "import torch.cuda as tc\ns = tc.Stream()\nwith tc.stream(s):\n  pass\n",
           "from torch.cuda import stream, Stream\ns = Stream()\nwith stream(s):\n  pass\n",
           "import torch\ns = torch.cuda.Stream()\nwith torch.cuda.StreamContext(s):\n  pass\n",
           "from torch import cuda\ns = cuda.Stream()\nwith cuda.stream(s):\n  pass\n",
       })
    EXPECT_TRUE(contains(lower(code), "region parent=0 @3 stream=stream 's'")) << code << lower(code);
  EXPECT_TRUE(contains(lower("import torch\nwith torch.cuda.stream(torch.cuda.Stream()) as s:\n  pass\n"),
                       "region parent=0 @2 stream=stream 'torch.cuda.Stream()'"));
}

TEST(PythonFrontend, StreamsInDictsAndAttributes) {
  std::string d = lower(
      "import torch\n"
      "def f(dev):\n"
      "  if dev not in f.streams:\n"
      "    f.streams[dev] = torch.cuda.Stream(device=dev)\n"
      "  s = f.streams[dev]\n"
      "  with torch.cuda.stream(s):\n"
      "    pass\n"
      "class M:\n"
      "  def __init__(self):\n"
      "    self.comm = torch.cuda.Stream()\n"
      "  def step(self):\n"
      "    with torch.cuda.stream(self.comm):\n"
      "      pass\n");
  EXPECT_TRUE(contains(d, "stream-create scope=1 on=the current stream api=torch.cuda.Stream value=f.streams[]"));
  // A stream fetched from a cache is named where the user binds it.
  EXPECT_TRUE(contains(d, "region parent=0 @6 stream=stream 's'")) << d;
  EXPECT_TRUE(contains(d, "region parent=0 @12 stream=stream 'self.comm'")) << d;
}

TEST(PythonFrontend, EvidenceDrivesTensorEvents) {
  std::string d = lower(
      "import torch\n"
      "def f(x: torch.Tensor, y):\n"
      "  a = x.item()\n"     // annotated: evidence
      "  b = y.item()\n"     // unknown: perhaps a sync (low confidence, for SL501)
      "  c = torch.zeros(4, device='cuda')\n"
      "  d = c.cpu()\n"
      "  e = torch.ones(3)\n"
      "  g = e.to('cuda', non_blocking=True)\n");
  EXPECT_TRUE(contains(d, "3:7 host-sync scope=0 on=the current stream api=Tensor.item sync=value-read reads=x"));
  EXPECT_TRUE(contains(d, "4:7 host-sync scope=0 on=the current stream api=y.item sync=value-read confidence=low")) << d;
  EXPECT_TRUE(contains(d, "5:7 alloc scope=0 on=the current stream api=torch.zeros value=c"));
  EXPECT_TRUE(contains(d, "6:7 host-sync scope=0 on=the current stream api=Tensor.cpu sync=blocking-copy reads=c"));
  EXPECT_TRUE(contains(d, "copy scope=0 on=the current stream api=Tensor.to value=g dir=1 nb=1 pinned=1")) << d;
}

TEST(PythonFrontend, SyntaxErrorsAreReportedAndTheRestIsLowered) {
  std::vector<sl::Finding> diags;
  std::string d = lower("import torch\ndef f(:\n  pass\ntorch.cuda.synchronize()\n", &diags);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].ruleId, "parse-error");
  EXPECT_EQ(diags[0].loc.line, 2u);
  EXPECT_TRUE(contains(d, "host-sync")) << d;
}

TEST(PythonFrontend, CallsIntoSameModuleAndWaits) {
  std::string d = lower(
      "import torch\n"
      "def helper():\n"
      "  torch.cuda.synchronize()\n"
      "def f(s):\n"
      "  s.wait_stream(torch.cuda.current_stream())\n"
      "  with torch.cuda.stream(s):\n"
      "    helper()\n"
      "    torch.cuda.current_stream().wait_stream(s)\n");
  EXPECT_TRUE(contains(d, "call scope=1 on=stream 's' api=helper callee=helper"));
  EXPECT_TRUE(contains(d, "wait scope=0 on=stream 's' api=Stream.wait_stream other=the current stream"));
  EXPECT_TRUE(contains(d, "wait scope=1 on=stream 's' api=Stream.wait_stream other=stream 's'")) << d;
}

// A project whose package name starts with "torch" (torchao, torchtune, torch_geometric) is
// not torch: its functions are calls the project index resolves, not unknown torch APIs.
TEST(PythonFrontend, CallsIntoTorchNamedProjectPackages) {
  std::string d = lower(
      "import torch\n"
      "from torchao.kernels import offsets\n"
      "from torch_geometric.utils import softmax\n"
      "def f(x):\n"
      "  offsets(x)\n"
      "  softmax(x)\n"
      "  torch.special.entr(x)\n");
  EXPECT_TRUE(contains(d, "callee=torchao.kernels.offsets")) << d;
  EXPECT_TRUE(contains(d, "callee=torch_geometric.utils.softmax")) << d;
  EXPECT_FALSE(contains(d, "callee=torch.special")) << d;
}

// A Call event names a CUDA tensor it hands over (driver/HotHelpers.h follows such calls of
// per-step code into other files); a call given host values names none.
TEST(PythonFrontend, CallEventNamesCudaArgument) {
  std::string d = lower(
      "import torch\n"
      "from pkg.kernels import offsets\n"
      "def f(n: int, xs):\n"
      "  x = torch.zeros(n, device='cuda')\n"
      "  offsets(x)\n"
      "  offsets(n)\n"
      "  offsets(n, x, x.cpu(), x)\n"
      "  offsets(*xs, x)\n");
  EXPECT_TRUE(contains(d, "5:3 call scope=0 on=the current stream api=pkg.kernels.offsets value=x callee=pkg.kernels.offsets cuda-args=0 reads=x\n")) << d;
  EXPECT_TRUE(contains(d, "6:3 call scope=0 on=the current stream api=pkg.kernels.offsets callee=pkg.kernels.offsets\n")) << d;
  // Positions of the CUDA arguments; none past a `*xs` (positions unknown).
  EXPECT_TRUE(contains(d, "7:3 call scope=0 on=the current stream api=pkg.kernels.offsets value=x callee=pkg.kernels.offsets cuda-args=1,3 reads=x\n")) << d;
  // The helper reads what it is handed on the stream current at the call.
  EXPECT_TRUE(contains(d, "8:3 call scope=0 on=the current stream api=pkg.kernels.offsets value=x callee=pkg.kernels.offsets reads=x\n")) << d;
}

// Branches whose conditions test only the function's arguments (and imported names,
// builtins) are marked: every call given such arguments takes them. Object or module state,
// locals and empty-input tests are not; a return under such branches is no early exit.
TEST(PythonFrontend, BranchesOnTheArgumentsOnly) {
  std::vector<sl::Finding> diags;
  sl::SourceFile file("t.py",
                      "import torch\n"
                      "from pkg import is_compiling\n"
                      "_CACHE = {}\n"
                      "def f(x, ptr=None):\n"
                      "  if ptr is not None and ptr.dim() == 1 and not is_compiling():\n"  // 5
                      "    pass\n"
                      "  elif isinstance(ptr, torch.Tensor) and x.device.type == 'cpu':\n"  // 7
                      "    pass\n"
                      "  else:\n"  // 9
                      "    pass\n"
                      "  if x.numel() == 0:\n"  // 11
                      "    pass\n"
                      "  if ptr in _CACHE:\n"  // 13
                      "    pass\n"
                      "  n = 3\n"
                      "  if n > x.dim():\n"  // 16
                      "    pass\n"
                      "  if len(x) < 14:\n"  // 18
                      "    pass\n"
                      "class M:\n"
                      "  def g(self, x):\n"
                      "    if self.x is None:\n"  // 22
                      "      pass\n"
                      "def h(x, ptr=None):\n"
                      "  if ptr is None:\n"
                      "    return x\n"
                      "  return x.sum()\n"
                      "def k(x):\n"
                      "  if x.numel() == 0:\n"
                      "    return x\n"
                      "  return x.sum()\n");
  auto m = sl::py::lowerPython(file, diags);
  auto branches = [&](const std::string& fn) {
    std::map<uint32_t, bool> out;  // line -> onArguments
    for (const auto& s : m.find(fn)->scopes)
      if (s.kind == sl::model::ScopeKind::Branch) out[s.loc.line] = s.onArguments;
    return out;
  };
  auto f = branches("f");
  EXPECT_TRUE(f[5]);
  EXPECT_TRUE(f[7]);
  EXPECT_TRUE(f[9]);
  EXPECT_FALSE(f[11]);
  EXPECT_FALSE(f[13]);
  EXPECT_FALSE(f[16]);
  EXPECT_TRUE(f[18]);
  EXPECT_FALSE(branches("M.g")[22]);
  EXPECT_EQ(m.find("h")->firstInnerReturn, 0u);
  EXPECT_EQ(m.find("k")->firstInnerReturn, 30u);
}

// `torch.tensor([], device=...)` copies nothing; an arm for another device than CUDA forgets
// what was known of the tested tensor.
TEST(PythonFrontend, EmptyUploadsAndOtherDeviceArms) {
  std::string d = lower(
      "import torch\n"
      "def f(ids: torch.Tensor):\n"
      "  e = torch.tensor([], device='cuda')\n"
      "  one = torch.tensor([1], device='cuda')\n"
      "  if ids.device.type == 'mps':\n"
      "    ids = ids.to('cpu')\n"
      "  return ids.cpu()\n");
  EXPECT_FALSE(contains(d, "3:7 copy")) << d;
  EXPECT_TRUE(contains(d, "4:9 copy")) << d;
  EXPECT_FALSE(contains(d, "6:11 host-sync")) << d;
  EXPECT_TRUE(contains(d, "7:10 host-sync")) << d;  // after the arm: CUDA on the other path
}

// Parameters that per-step callers of other modules fill with CUDA tensors (CallerInputs):
// an annotated tensor among them is as sure as the caller's argument.
TEST(PythonFrontend, CallerInputsPromoteAnnotatedParameters) {
  const char* code =
      "import torch\n"
      "def seg(src: torch.Tensor, ptr: torch.Tensor):\n"
      "  return ptr.sum().item()\n";
  std::vector<sl::Finding> diags;
  sl::SourceFile file("t.py", code);
  std::string plain = sl::model::dump(sl::py::lowerPython(file, diags, {}, false, true));
  sl::py::CallerInputs callers{{"seg", {{1, "a CUDA tensor is passed to it every step by `forward()` in a.py"}}}};
  auto m = sl::py::lowerPython(file, diags, {}, false, true, &callers);
  std::string told = sl::model::dump(m);
  EXPECT_TRUE(contains(plain, "api=Tensor.item sync=value-read confidence=low")) << plain;
  EXPECT_TRUE(contains(told, "api=Tensor.item sync=value-read confidence=medium")) << told;
  sl::py::CallerInputs other{{"seg", {{0, "src only"}}}};
  EXPECT_TRUE(contains(sl::model::dump(sl::py::lowerPython(file, diags, {}, false, true, &other)),
                       "api=Tensor.item sync=value-read confidence=low"));
}

// `self._device = get_device(device=cfg.device)`: a call given a device and bound to a
// device's name returns that device, not a tensor: copies to it are copies to the GPU.
TEST(PythonFrontend, DeviceNamedCallResultIsADevice) {
  std::string d = lower(
      "import torch\n"
      "from proj import utils\n"
      "assert torch.cuda.is_available()\n"
      "class Recipe:\n"
      "  def __init__(self, cfg):\n"
      "    self._device = utils.get_device(device=cfg.device)\n"
      "  def train(self, loader):\n"
      "    for batch in loader:\n"
      "      x = batch.to(self._device)\n"
      "      print(x.sum().item())\n");
  EXPECT_TRUE(contains(d, "host-sync scope=1 on=the current stream api=Tensor.item sync=value-read confidence=medium"))
      << d;
}

// A nested function calls its siblings by their short names; a closure called in a loop runs
// per iteration, one called by forward() on every call runs every step (PyHotClosures.h).
TEST(PythonFrontend, ClosuresCalledPerIterationOrPerStep) {
  std::string d = lower(
      "import torch\n"
      "def run(outs):\n"
      "  def send(o):\n"
      "    pass\n"
      "  def send_all(xs):\n"
      "    for x in xs:\n"
      "      send(x)\n"
      "  def once():\n"
      "    pass\n"
      "  send_all(outs)\n"
      "  once()\n"
      "class M(torch.nn.Module):\n"
      "  def forward(self, x):\n"
      "    def check():\n"
      "      pass\n"
      "    def maybe():\n"
      "      pass\n"
      "    check()\n"
      "    if x is None:\n"
      "      maybe()\n"
      "    return x\n");
  EXPECT_TRUE(contains(d, "callee=run.send\n")) << d;
  EXPECT_TRUE(contains(d, "function run.send @3 per-iteration=the loop at line 6 of `send_all()`")) << d;
  EXPECT_TRUE(contains(d, "function run.once @8\n")) << d;
  EXPECT_TRUE(contains(d, "function run.send_all @5\n")) << d;
  EXPECT_TRUE(contains(d, "function M.forward.check @14 hot=called every step from `forward()`, nn.Module.forward")) << d;
  EXPECT_TRUE(contains(d, "function M.forward.maybe @16\n")) << d;
}

// An input of an nn.Module's forward that the body reads as a tensor (`.item()`, a tensor
// method) is on the module's device like an annotated one: medium confidence. An entry of an
// input container only when forward writes into it (a KV cache, not a dict of settings); not
// once the name is rebound, not for `*_cpu` names or `int` annotations, not outside forward
// (recall row: FastVideo 959dbcc8, `kv_cache["local_end_index"].item()` every forward).
TEST(PythonFrontend, ForwardInputsReadAsTensors) {
  std::string d = lower(
      "import torch\n"
      "class Attn(torch.nn.Module):\n"
      "  def forward(self, q, kv_cache=None, lens_cpu=None, ids=None, cfg=None, step: int = 0):\n"
      "    end = kv_cache['end'].item()\n"             // 4
      "    n = lens_cpu.tolist()\n"                      // 5
      "    ids = self.embed(ids)\n"
      "    m = ids.item()\n"                             // 7
      "    t = cfg['thres'].item()\n"                    // 8
      "    kv_cache['k'][:, end:] = q\n"
      "    s = step.item()\n"                            // 10
      "    return q.item()\n"                            // 11
      "def helper(kv_cache):\n"
      "  return kv_cache['end'].item()\n"                // 13
      "X = torch.zeros(1, device='cuda')\n");
  EXPECT_TRUE(contains(d, "4:11 host-sync scope=0 on=the current stream api=Tensor.item sync=value-read reads=kv_cache[] confidence=medium\n")) << d;
  EXPECT_TRUE(contains(d, "5:9 host-sync scope=0 on=the current stream api=lens_cpu.tolist sync=value-read confidence=low")) << d;
  EXPECT_TRUE(contains(d, "7:9 host-sync scope=0 on=the current stream api=ids.item sync=value-read confidence=low")) << d;
  EXPECT_TRUE(contains(d, "8:9 host-sync scope=0 on=the current stream api=cfg[].item sync=value-read confidence=low")) << d;
  EXPECT_TRUE(contains(d, "10:9 host-sync scope=0 on=the current stream api=step.item sync=value-read confidence=low")) << d;
  EXPECT_TRUE(contains(d, "11:12 host-sync scope=0 on=the current stream api=Tensor.item sync=value-read reads=q confidence=medium\n")) << d;
  EXPECT_TRUE(contains(d, "13:10 host-sync scope=0 on=the current stream api=kv_cache[].item sync=value-read confidence=low")) << d;
}

// `acc += cuda_value` computes the sum on the GPU like `acc + cuda_value`, and `acc` holds a
// CUDA tensor from then on (recall row: fairseq2 c7bb1387, `self.stats += torch.tensor(s,
// device=self.device)` per sentence: the loop queues GPU work, not only uploads).
TEST(PythonFrontend, AugmentedAssignmentOfCudaValue) {
  std::string d = lower(
      "import torch\n"
      "def f(xs, stats):\n"
      "  total = 0.0\n"
      "  for x in xs:\n"
      "    stats += torch.tensor(x, device='cuda')\n"   // 5
      "    total += torch.ones(1, device='cuda')\n"      // 6
      "  n = 0\n"
      "  n += len(xs)\n"                                 // 8
      "  return total.item()\n");                        // 9
  EXPECT_TRUE(contains(d, "5:5 work scope=1 on=the current stream api=augmented-assignment writes=stats")) << d;
  EXPECT_TRUE(contains(d, "6:5 work scope=1 on=the current stream api=augmented-assignment writes=total")) << d;
  EXPECT_FALSE(contains(d, "8:3 work")) << d;
  EXPECT_TRUE(contains(d, "9:10 host-sync scope=0 on=the current stream api=Tensor.item sync=value-read reads=total")) << d;
}

// `for a, b in zip(xs, ys)` binds each target to its iterable's element in comprehensions as in
// `for` statements; a local of unknown device indexed by a GPU tensor is on the GPU (session 11,
// trl fdb228cf).
TEST(PythonFrontend, ZipPartsAndIndicesOnTheGpu) {
  std::string d = lower(
      "import torch\n"
      "def f(ids, n):\n"
      "  mask = torch.ones(n, 4, device='cuda').bool()\n"
      "  a = [m.sum().item() for i, m in enumerate(mask)]\n"      // 4
      "  b = [c[m].tolist() for c, m in zip(ids, mask)]\n"        // 5
      "  c = [len(c) for c, m in zip(ids, range(n))]\n"           // 6
      "  d = [x[k].tolist() for x, k in zip(ids, range(n))]\n");  // 7
  EXPECT_TRUE(contains(d, "4:8 host-sync")) << d;
  EXPECT_TRUE(contains(d, "5:8 host-sync")) << d;
  EXPECT_TRUE(contains(d, "api=Tensor.tolist sync=value-read confidence=medium")) << d;
  EXPECT_FALSE(contains(d, "6:8 host-sync")) << d;
  EXPECT_TRUE(contains(d, "api=x[].tolist sync=value-read confidence=low")) << d;  // an int index says nothing
}

// `self.X` set in `__init__` only is configuration: a branch on it is decided per
// configuration, like one on the arguments (session 11, litgpt 47806045).
TEST(PythonFrontend, ConfigurationAttributesDecideArms) {
  sl::SourceFile file("t.py",
                      "import torch\n"
                      "class Pad(torch.nn.Module):\n"
                      "  def __init__(self, enable):\n"
                      "    self.enable, self.r = enable, 4\n"
                      "    self.cache = None\n"
                      "    self.merged = False\n"
                      "    self.steps = 0\n"
                      "  def merge(self):\n"
                      "    self.merged = True\n"
                      "  def f(self, x):\n"  // 10
                      "    if all(self.enable):\n"
                      "      return x\n"
                      "    return x.sum()\n"
                      "  def g(self, x):\n"  // 14
                      "    if self.cache is not None:\n"
                      "      return self.cache\n"
                      "    self.cache = x.sum()\n"
                      "  def h(self, x):\n"  // 18
                      "    if self.merged:\n"
                      "      return x\n"
                      "    return x.sum()\n"
                      "  def k(self, x):\n"  // 22
                      "    self.steps += 1\n"
                      "    if self.steps > 3 and self.r > 2:\n"
                      "      return x\n"
                      "    return x.sum()\n");
  std::vector<sl::Finding> diags;
  auto m = sl::py::lowerPython(file, diags);
  EXPECT_EQ(m.find("Pad.f")->firstInnerReturn, 0u);
  EXPECT_EQ(m.find("Pad.g")->firstInnerReturn, 16u);  // a cache filled elsewhere
  EXPECT_EQ(m.find("Pad.h")->firstInnerReturn, 20u);  // written by merge()
  EXPECT_EQ(m.find("Pad.k")->firstInnerReturn, 25u);  // a counter
}

TEST(PythonFrontend, ConfigurationAttributeWrites) {
  auto config = [](const std::string& body, const char* attr) {
    std::string src = "class C:\n  def __init__(self):\n    self.a = 1\n    self.cfg = 2\n    self.buf = []\n" + body;
    sl::py::ConfigAttrs c;
    c.addInit("C", 10, uint32_t(src.find("\n", src.find("self.buf"))));
    return c.isConfig(src, "C", attr);
  };
  EXPECT_TRUE(config("  def f(self):\n    return self.a == 1 or self.ab\n", "a"));
  EXPECT_TRUE(config("  def f(self):\n    return self.a <= 1, self.a >= 2, self.a != 3\n", "a"));
  EXPECT_FALSE(config("  def f(self):\n    self.a = 2\n", "a"));
  EXPECT_FALSE(config("  def f(self):\n    self.a += 2\n", "a"));
  EXPECT_FALSE(config("  def f(self):\n    self.a //= 2\n", "a"));
  EXPECT_FALSE(config("  def f(self):\n    self.b, self.a = 1, 2\n", "a"));
  EXPECT_FALSE(config("  def f(self):\n    self.a, self.b = 1, 2\n", "a"));
  EXPECT_FALSE(config("  def f(self):\n    self.cfg.flag = False\n", "cfg"));
  EXPECT_FALSE(config("  def f(self):\n    self.cfg[k] = False\n", "cfg"));
  EXPECT_FALSE(config("  def f(self):\n    self.buf.append(3)\n", "buf"));
  EXPECT_FALSE(config("  def f(self):\n    del self.a\n", "a"));
  EXPECT_FALSE(config("  def f(self):\n    return 1\n", "missing"));  // never set in __init__
  EXPECT_TRUE(config("  def f(self):\n    self.cfg.flag == 1\n    g(self.buf[0])\n", "cfg"));
}

// A function that adds a name to a CPU-built tensor of one or more dimensions proves it (and
// what it was sliced or computed from) a host tensor (TransformerEngine pad_thd_sequences_for_cp).
TEST(PythonFrontend, HostProvenByCombination) {
  auto proven = [](const std::string& body) {
    std::string src = "import torch\ndef f(cu, other, dev, n):\n" + body;
    TSParser* parser = ts_parser_new();
    ts_parser_set_language(parser, tree_sitter_python());
    TSTree* tree = ts_parser_parse_string(parser, nullptr, src.data(), uint32_t(src.size()));
    TSNode root = ts_tree_root_node(tree);
    sl::py::Imports imports;
    imports.add(ts_node_named_child(root, 0), src);
    auto names = sl::py::hostProvenNames(sl::py::field(ts_node_named_child(root, 1), "body"), src, imports);
    ts_tree_delete(tree);
    ts_parser_delete(parser);
    std::string out;
    for (const char* p : {"cu", "other", "dev", "n"}) out += names.count(p) ? std::string(p) + " " : "";
    return out;
  };
  EXPECT_EQ(proven("  s = cu[1:] - cu[:-1]\n  pads = [1 for x in s]\n  return s + torch.tensor(pads)\n"), "cu ");
  EXPECT_EQ(proven("  return torch.cat([torch.tensor([0]), other])\n"), "other ");
  EXPECT_EQ(proven("  return other * torch.arange(n)\n"), "other ");
  EXPECT_EQ(proven("  return other + torch.tensor([1, 2], device=dev)\n"), "");  // on the device
  EXPECT_EQ(proven("  return other + torch.tensor(3)\n"), "");                   // a CPU scalar may join
  EXPECT_EQ(proven("  return other + torch.zeros(())\n"), "");
  EXPECT_EQ(proven("  other = other.cpu()\n  return other + torch.tensor([1])\n"), "");  // rebound
  EXPECT_EQ(proven("  s = cu.sum(0)\n  return s + torch.tensor([1])\n"), "");            // a call's device
  EXPECT_EQ(proven("  s = cu\n  s = other\n  return s + torch.tensor([1])\n"), "");     // two bindings
}

// A Triton kernel's summary: which parameters' memory it loads and stores, through pointer
// arithmetic (the stride multiplies an offset: no pointer), locals, block pointers and
// descriptors; summaries carry that to the arguments of its launch and of helpers around it.
TEST(PythonFrontend, KernelParametersLoadedAndStored) {
  const std::string code =
      "import torch\nimport triton\nimport triton.language as tl\n\n"
      "@triton.jit\n"
      "def k(a_ptr, b_ptr, out_ptr, acc_ptr, d_ptr, stride, n, BLOCK: tl.constexpr):\n"
      "    offs = tl.arange(0, BLOCK)\n"
      "    a_ptrs = a_ptr + offs[:, None] * stride\n"
      "    a = tl.load(a_ptrs)\n"
      "    blk = tl.make_block_ptr(base=b_ptr, shape=(n,), strides=(stride,), offsets=(0,), block_shape=(BLOCK,), order=(0,))\n"
      "    b = tl.load(blk)\n"
      "    tl.store(offs * stride + out_ptr, a + b)\n"
      "    tl.atomic_add(acc_ptr, 1)\n"
      "    desc = tl.make_tensor_descriptor(d_ptr, shape=[n], strides=[1], block_shape=[BLOCK])\n"
      "    desc.store([0], a)\n\n"
      "def launch(x, y, out, acc, d):\n"
      "    k[(1,)](x, y, out, acc, d, 1, x.numel(), BLOCK=128)\n";
  std::vector<sl::Finding> diags;
  sl::SourceFile f("t.py", code);
  auto m = sl::py::lowerPython(f, diags);
  const sl::model::Function* kern = m.find("k");
  ASSERT_NE(kern, nullptr);
  EXPECT_TRUE(kern->deviceKernel);
  EXPECT_EQ(kern->kernelLoads, 0b01011u);   // a_ptr, b_ptr, acc_ptr
  EXPECT_EQ(kern->kernelStores, 0b11100u);  // out_ptr, acc_ptr, d_ptr
  sl::model::ModuleSummary s(m);
  const sl::model::FunctionSummary* l = s.of("launch");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->readsParams, 0b01011u);
  EXPECT_EQ(l->writesParams, 0b11100u);
  sl::model::applyParameterEffects(m, s);
  const sl::model::Function* launch = m.find("launch");
  bool found = false;
  for (const auto& e : launch->events)
    if (e.kind == sl::model::EventKind::Call && e.callee == "k") {
      found = true;
      EXPECT_EQ(e.writes, (std::vector<std::string>{"out", "acc", "d"}));
      EXPECT_EQ(e.reads, (std::vector<std::string>{"x", "y", "acc"}));
    }
  EXPECT_TRUE(found) << sl::model::dump(m);
}

// A platform wrapper kept on the object (`self.platform = get_torch_device()`) is torch.cuda by
// its API; an attribute the module only sets to a container is a host value: its `.add()` in a
// region is a set's, not GPU work.
TEST(PythonFrontend, PlatformWrappersAndHostContainerAttributes) {
  std::string d = lower(
      "import torch\n"
      "class S:\n"
      "  def __init__(self, platform):\n"
      "    self.platform = platform\n"
      "    self.stream = self.platform.Stream()\n"
      "    self.ids: set[int] = set()\n"
      "  def push(self, x, buf):\n"
      "    with self.platform.stream(self.stream):\n"
      "      buf.copy_(x, non_blocking=True)\n"
      "      self.ids.add(1)\n");
  EXPECT_TRUE(contains(d, "stream-create scope=0 on=the current stream api=torch.cuda.Stream value=self.stream")) << d;
  EXPECT_TRUE(contains(d, "region parent=0 @8 stream=stream 'self.stream'")) << d;
  EXPECT_FALSE(contains(d, "self.ids")) << d;
  // threading's Event and a dtype's getattr are no device module.
  std::string t = lower("import torch, threading\nclass W:\n  def __init__(self, mp):\n    self.done = mp.Event()\n");
  EXPECT_FALSE(contains(t, "event-create")) << t;
}
