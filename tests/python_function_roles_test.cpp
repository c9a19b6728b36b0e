// Function-level facts of the Python frontend (python/PyFunctionRoles.h): which functions run
// every step, which are written for people.
#include <gtest/gtest.h>

#include "model/ModelDump.h"
#include "python/PyFunctionRoles.h"
#include "python/PythonFrontend.h"

namespace {

sl::model::Module lowerModule(const std::string& code, std::vector<sl::Finding>* diags = nullptr) {
  std::vector<sl::Finding> d;
  sl::SourceFile f("t.py", code);
  auto m = sl::py::lowerPython(f, d);
  if (diags) *diags = d;
  return m;
}

std::string hotOf(const sl::model::Module& m, const std::string& name) {
  const sl::model::Function* f = m.find(name);
  return f ? f->hot : "<missing>";
}

}  // namespace

TEST(FunctionRoles, ClassesWhoseMethodsRunEveryStep) {
  auto m = lowerModule(
      "import torch\n"
      "import torch.nn as nn\n"
      "from torch import autograd, optim\n"
      "from torch.autograd import Function as F\n"
      "class A(nn.Module):\n"
      "    def forward(self, x): return x\n"
      "    def reset(self): pass\n"
      "class B(A):\n"                       // through a class of this module
      "    def forward(self, x): return x\n"
      "class C(MegatronModule):\n"          // a base named *Module
      "    def forward(self, x): return x\n"
      "class D(torch.nn.Linear):\n"         // any torch.nn class
      "    def forward(self, x): return x\n"
      "class P(torch.nn.Parameter):\n"      // ... but a Parameter is a tensor
      "    def forward(self, x): return x\n"
      "class G(autograd.Function):\n"
      "    @staticmethod\n"
      "    def forward(ctx, x): return x\n"
      "    @staticmethod\n"
      "    def backward(ctx, g): return g\n"
      "class H(F):\n"                       // Function imported from torch.autograd, aliased
      "    def backward(ctx, g): return g\n"
      "class Function:\n"                   // a class of the user's that happens to be called Function
      "    pass\n"
      "class K(Function):\n"
      "    def forward(self, x): return x\n"
      "class O(optim.Optimizer):\n"
      "    def step(self): pass\n"
      "    def zero_grad(self): pass\n"
      "class Q(DistributedOptimizer):\n"
      "    def step(self): pass\n"
      "class Plain:\n"
      "    def forward(self, x): return x\n"
      "class Unet(ModelMixin, ConfigMixin):\n"  // a base from another file, but it builds modules
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        # comment\n"
      "\n"
      "        self.conv = nn.Conv2d(1, 1, 1)\n"
      "    def forward(self, x): return x\n"
      "class Runner(Base):\n"                   // ... this one only stores a module it was given
      "    def __init__(self, model):\n"
      "        super().__init__()\n"
      "        self.model = model\n"
      "    def forward(self, x): return x\n"
      "x = nn.Linear(1, 1)\n"                    // after the class: not its code
      "class Holder(Base):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "    def forward(self, x): return x\n"
      "self.later = nn.Linear(1, 1)\n"
      "def forward(x): return x\n");
  EXPECT_EQ(hotOf(m, "A.forward"), "nn.Module.forward");
  EXPECT_EQ(hotOf(m, "A.reset"), "");
  EXPECT_EQ(hotOf(m, "B.forward"), "nn.Module.forward");
  EXPECT_EQ(hotOf(m, "C.forward"), "nn.Module.forward");
  EXPECT_EQ(hotOf(m, "D.forward"), "nn.Module.forward");
  EXPECT_EQ(hotOf(m, "P.forward"), "");
  EXPECT_EQ(hotOf(m, "G.forward"), "autograd.Function.forward");
  EXPECT_EQ(hotOf(m, "G.backward"), "autograd.Function.backward");
  EXPECT_EQ(hotOf(m, "H.backward"), "autograd.Function.backward");
  EXPECT_EQ(hotOf(m, "K.forward"), "");
  EXPECT_EQ(hotOf(m, "O.step"), "Optimizer.step");
  EXPECT_EQ(hotOf(m, "O.zero_grad"), "");
  EXPECT_EQ(hotOf(m, "Q.step"), "Optimizer.step");
  EXPECT_EQ(hotOf(m, "Plain.forward"), "");
  EXPECT_EQ(hotOf(m, "Unet.forward"), "nn.Module.forward");
  EXPECT_EQ(hotOf(m, "Runner.forward"), "");
  EXPECT_EQ(hotOf(m, "Holder.forward"), "");
  EXPECT_EQ(hotOf(m, "forward"), "");
}

TEST(FunctionRoles, ModulesKnownByAForwardThatTakesTensors) {
  auto m = lowerModule(
      "import torch\n"
      "from typing import Optional\n"
      "from torch import Tensor\n"
      "class Pip(BaseModel):\n"  // a base from another file; it only wraps a module it is given
      "    def __init__(self, model):\n"
      "        super().__init__()\n"
      "        self.model = model\n"
      "    def forward(self, hidden: torch.Tensor, mask: Optional[Tensor] = None): return hidden\n"
      "class Ids(Base):\n"
      "    def forward(self, ids: torch.LongTensor): return ids\n"
      "class Dict(Base):\n"  // TensorDict is not a tensor
      "    def forward(self, td: TensorDict, t: TensorType): return td\n"
      "class Bare:\n"  // no base at all: not a Module
      "    def forward(self, x: torch.Tensor): return x\n");
  EXPECT_EQ(hotOf(m, "Pip.forward"), "nn.Module.forward");
  EXPECT_EQ(hotOf(m, "Ids.forward"), "nn.Module.forward");
  EXPECT_EQ(hotOf(m, "Dict.forward"), "");
  EXPECT_EQ(hotOf(m, "Bare.forward"), "");
}

TEST(FunctionRoles, PerStepFunctionsKnownByTheirNames) {
  auto m = lowerModule(
      "import torch\n"
      "def train_step(model, batch): pass\n"
      "def _update_step_context(ctx): pass\n"
      "class Cb(Callback):\n"
      "    def on_train_batch_end(self, trainer): pass\n"
      "    def on_megatron_step_end(self, step): pass\n"
      "    def on_validation_start(self, trainer): pass\n"  // once per validation run
      "def step(x): pass\n"                                 // a scheduler's, an environment's
      "def get_step(state): pass\n"
      "def init_step_state(state): pass\n"
      "def num_steps(cfg): pass\n"
      "def stepper(x): pass\n");
  EXPECT_EQ(hotOf(m, "train_step"), "named as a per-step function");
  EXPECT_EQ(hotOf(m, "_update_step_context"), "named as a per-step function");
  EXPECT_EQ(hotOf(m, "Cb.on_train_batch_end"), "named as a per-step callback");
  EXPECT_EQ(hotOf(m, "Cb.on_megatron_step_end"), "named as a per-step callback");
  EXPECT_EQ(hotOf(m, "Cb.on_validation_start"), "");
  EXPECT_EQ(hotOf(m, "step"), "");
  EXPECT_EQ(hotOf(m, "get_step"), "");
  EXPECT_EQ(hotOf(m, "init_step_state"), "");
  EXPECT_EQ(hotOf(m, "num_steps"), "");
  EXPECT_EQ(hotOf(m, "stepper"), "");
}

TEST(FunctionRoles, HooksRegisteredInThisModule) {
  auto m = lowerModule(
      "import functools\n"
      "import torch\n"
      "def on_forward(mod, i, o): pass\n"
      "def on_grad(g): pass\n"
      "def on_load(*a): pass\n"
      "def unused(g): pass\n"
      "class M(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.register_full_backward_hook(self._bw)\n"
      "    def _bw(self, mod, gi, go): pass\n"
      "def install(model, ddp, state):\n"
      "    def nested(g): return g\n"
      "    model.register_forward_hook(on_forward)\n"
      "    model.weight.register_hook(nested)\n"
      "    model.weight.register_post_accumulate_grad_hook(functools.partial(on_grad))\n"
      "    ddp.register_comm_hook(state, hook=on_grad)\n"
      "    model.register_load_state_dict_post_hook(on_load)\n");
  EXPECT_EQ(hotOf(m, "on_forward"), "a hook registered with register_forward_hook");
  EXPECT_EQ(hotOf(m, "install.nested"), "a hook registered with register_hook");
  EXPECT_EQ(hotOf(m, "on_grad"), "a hook registered with register_post_accumulate_grad_hook");
  EXPECT_EQ(hotOf(m, "M._bw"), "a hook registered with register_full_backward_hook");
  EXPECT_EQ(hotOf(m, "on_load"), "");  // runs once, on load
  EXPECT_EQ(hotOf(m, "unused"), "");
  EXPECT_EQ(hotOf(m, "install"), "");
}

// A hook that removes its handle (`self.check.remove()`) checks the first batch and is gone:
// not per-step code. A list's `remove(x)` is no such thing.
TEST(FunctionRoles, SelfRemovingHooksRunOnce) {
  auto m = lowerModule(
      "import torch\n"
      "class Engine:\n"
      "    def __init__(self, model):\n"
      "        def check_once(mod, args):\n"
      "            print(len(args))\n"
      "            self.check.remove()\n"
      "        def track(mod, args):\n"
      "            self.seen.remove(mod)\n"
      "        self.check = model.register_forward_pre_hook(check_once)\n"
      "        model.register_forward_pre_hook(track)\n");
  EXPECT_EQ(hotOf(m, "Engine.__init__.check_once"), "");
  EXPECT_EQ(hotOf(m, "Engine.__init__.track"), "a hook registered with register_forward_pre_hook");
}

TEST(FunctionRoles, FormattingMethodsAreDeliberateAndEndLinesAreKept) {
  auto m = lowerModule(
      "import torch\n"
      "class M:\n"
      "    def __repr__(self):\n"
      "        return 'M'\n"
      "    def extra_repr(self):\n"
      "        return ''\n"
      "    def show(self):\n"
      "        return 1\n");
  ASSERT_NE(m.find("M.__repr__"), nullptr);
  EXPECT_EQ(m.find("M.__repr__")->deliberate, "`__repr__`");
  EXPECT_EQ(m.find("M.__repr__")->endLine, 4u);
  EXPECT_EQ(m.find("M.extra_repr")->deliberate, "`extra_repr`");
  EXPECT_EQ(m.find("M.show")->deliberate, "");
}

TEST(FunctionRoles, OneTimeSetUpByName) {
  // Set-up runs once per model; names that only start like it run every step.
  for (const char* once : {"__init__", "__post_init__", "reset_parameters", "_init_weights", "init_weights",
                           "initialize", "setup", "_setup_model", "setUp", "set_up_buffers", "configure_optimizers",
                           "calibrate", "warmup", "_warm_up_graphs", "export_onnx", "convert_checkpoint",
                           "save_pretrained", "from_pretrained", "from_config", "load_state_dict",
                           "_load_from_state_dict", "load_checkpoint", "load_peft_weights", "load",
                           "build_model", "prepare_model", "prepare_latents", "prepare_image_latents",
                           "tie_weights", "capture_graph", "move_non_experts_to_gpu"})
    EXPECT_NE(sl::py::deliberateRole(std::string("C.") + once).find("one-time set-up"), std::string::npos) << once;
  for (const char* hot : {"forward", "step", "load_batch", "load_balancing_loss", "build_attention_mask",
                          "prepare_inputs_for_generation", "initial_state", "reset", "quantize",
                          "from_dense", "loader", "move_to_device", "capture"})
    EXPECT_EQ(sl::py::deliberateRole(hot), "") << hot;
  EXPECT_EQ(sl::py::deliberateRole("C.__repr__"), "`__repr__`");
  EXPECT_EQ(sl::py::deliberateRole("C.merge"), "one-time set-up `merge`");  // an adapter's merge, on request
  EXPECT_EQ(sl::py::deliberateRole("merge_attention_states"), "");
  EXPECT_EQ(sl::py::deliberateRole("quantize_model_"), "one-time set-up `quantize_model_`");
  EXPECT_EQ(sl::py::deliberateRole("HistogramObserver.forward"), "calibration `HistogramObserver`");
  EXPECT_EQ(sl::py::deliberateRole("Observer"), "");  // a function of that name, not a class's method
}

TEST(FunctionRoles, LoggingByName) {
  for (const char* shows : {"log_all", "_log_metrics", "training_log", "dist_reduce_metrics", "print_eviction_stats",
                            "logging_step"})
    EXPECT_EQ(sl::py::deliberateRole(shows), "logging `" + std::string(shows) + "`");
  for (const char* computes : {"log_softmax", "compute_log_probs", "log_prob", "get_log_likelihood", "logits",
                               "update_metrics", "metric", "blog"})
    EXPECT_EQ(sl::py::deliberateRole(computes), "") << computes;
}

TEST(FunctionRoles, LoggingStatementsAndDeviceKernels) {
  auto m = lowerModule(
      "import logging, torch\n"
      "from numba import cuda\n"
      "logger = logging.getLogger()\n"
      "def f(x, writer, pbar, loss_meter):\n"
      "    print(x.item())\n"                       // 5
      "    logger.info('%f',\n"                      // 6
      "                x.item())\n"                  // 7
      "    writer.add_scalar('x', x.item())\n"       // 8
      "    pbar.set_postfix(loss=x.item())\n"        // 9
      "    loss_meter.update(x.item())\n"            // 10
      "    metrics['x'] = x.item()\n"                // 11
      "    y = x.log()\n"                            // 12: torch's logarithm
      "    z = torch.log_softmax(x, -1)\n"           // 13
      "    self_parameter.copy_(x)\n"                // 14
      "    val_log = {'x': x.item()}\n"              // 15: a dict to log
      "    log_probs = x.log_softmax(-1)\n"          // 16: not one
      "@cuda.jit\n"
      "def kernel(a):\n"
      "    a[0] = 1\n");
  std::vector<std::pair<uint32_t, uint32_t>> want = {{5, 5}, {6, 7}, {8, 8}, {9, 9}, {10, 10}, {11, 11}, {15, 15}};
  EXPECT_EQ(m.loggingOnly, want);
  // Device code is not lowered: the kernel is only a summary of its parameters' memory.
  ASSERT_NE(m.find("kernel"), nullptr);
  EXPECT_TRUE(m.find("kernel")->deviceKernel);
  EXPECT_TRUE(m.find("kernel")->events.empty());
  EXPECT_NE(m.find("f"), nullptr);
}

// The roles walk skips subtrees that cannot hold a call or assignment it looks at (issue 12):
// what has no `(` and no `=` can still be an assignment (`metrics: dict`), logger names count
// in any case, a logging call may sit deep in an expression, a raise on an `if` line.
TEST(FunctionRoles, TheRolesWalkSkipsOnlyWhatCannotMatter) {
  auto m = lowerModule(
      "import torch\n"
      "def f(self, x, xs, bad):\n"
      "    metrics: dict\n"                                   // 3
      "    self.LOGGER.warning('x %s', x)\n"                  // 4
      "    out = torch.stack([print_stats(t) for t in xs])\n"  // 5
      "    if bad: raise ValueError(x)\n"                     // 6
      "    return out\n");
  std::vector<std::pair<uint32_t, uint32_t>> logging = {{3, 3}, {4, 4}, {5, 5}}, raises = {{6, 6}};
  EXPECT_EQ(m.loggingOnly, logging);
  EXPECT_EQ(m.failureOnly, raises);
}
