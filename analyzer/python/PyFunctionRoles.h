// Function-level facts of one Python module that no statement of the function shows: which
// functions run every training step although no loop is in sight ("hot"), and which are
// written for people rather than for speed ("deliberate").
//
// Hot, by these rules (precise on purpose: a wrong "hot" turns a one-off read into a note):
//   * `forward` and `training_step` of an nn.Module subclass: a class with a base whose last
//     name ends in `Module` (nn.Module, torch.nn.Module, MegatronModule, LightningModule), a
//     torch.nn class (`nn.Linear`, `torch.nn.Sequential`; not Parameter/Buffer), or a class of
//     this module that is one of these; or, when no base says so (a base from another file:
//     `class UNet(ModelMixin)`), a class whose own code calls super().__init__ and stores a
//     torch.nn module in `self.` (`self.proj = nn.Linear(...)`), or whose `forward` takes
//     tensor-annotated parameters (`def forward(self, x: torch.Tensor)`: a wrapper of a model
//     it was given, `class DiTPiP(BaseModel)`);
//   * `forward` and `backward` of a torch.autograd.Function subclass (`autograd.Function`,
//     `torch.autograd.Function`, `Function` imported from torch.autograd, or a class of this
//     module deriving from one);
//   * `step` of an optimizer: a base whose last name ends in `Optimizer`, a torch.optim class
//     (`torch.optim.AdamW`), or a class of this module deriving from one;
//   * a function of this module patched in as a class's forward (`Cls.forward = f`);
//   * a function of this module passed to a per-step hook registration
//     (`register_forward_hook`, `register_hook`, `register_comm_hook`...; kHookRegistrations),
//     by name, as `self.method`, or through `functools.partial(f, ...)`;
//   * a function named as per-step code, whatever its class: framework callbacks
//     `on_*_batch_*` / `on_*_step_*` (`on_train_batch_end`, `on_megatron_step_end`) and names
//     with the word `step` (`train_step`, `update_step_context`) except accessors and set-up
//     (`get_step`, `init_step_state`, `num_steps`) and a bare `step` (a scheduler's too); and
//     names of a loss computation (`compute_loss`, `loss_fn`, `chunked_cross_entropy`, `loss`)
//     except reporting, loss-scale bookkeeping, accessors, set-up and tests;
//   * a function or method of this module that one of the above calls on every call (not in a
//     nested function; under an `if` only in an arm chosen by configuration: a setting's or an
//     argument's truth or None-ness, not a counter, a comparison, a guard word or a lazy
//     `self.x is None`), and the helpers those call in turn, up to three levels:
//     `hotViaCaller`, whose rules count only what runs on every call.
// Deliberate: `__str__`, `__repr__`, `__format__`, `__rich_repr__`, `extra_repr` (formatting
// for people; a sync there is the price of showing a value), and one-time set-up, by name:
// constructors (`__init__`, `__post_init__`), `init*`/`setup*`/`configure*`/`calibrat*`/
// `warmup*`/`export*`/`convert*`/`save*`, `reset_parameters`, `tie_weights`, `from_pretrained`
// and `from_config`, `load` of a state, checkpoint, model, weights or adapter
// (`load_state_dict`, not `load_batch`), `build_model`/`prepare_model`, `prepare_latents`,
// `quantize_model`, an adapter's `merge`/`unmerge`, placing state on a device (`set_lora_device`,
// `_move_indices_to_device`); and logging: a name starting with `log_`
// (not `log_softmax`) or `print_`, ending in `_log`, or with the word `metrics`.
// A hot function inside one (a hook defined in `__init__`) stays hot: DeliberateCode.cpp.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "python/PyImports.h"
#include "python/TsNode.h"

namespace sl::py {

struct FunctionRoles {
  // Function name as PythonFrontend names it ("C.forward", "f.hook") -> why it is hot
  // ("nn.Module.forward", "a hook registered with register_forward_hook").
  std::unordered_map<std::string, std::string> hot;
  // Of `hot`, the helpers that are hot only because a per-step function calls them.
  std::unordered_set<std::string> hotViaCaller;
  // [first, last] lines of each `raise` statement: its message runs only on failure (like an
  // assertion's message, which the lowering never evaluates).
  std::vector<std::pair<uint32_t, uint32_t>> raises;
  // [first, last] lines of each `assert` statement and of the condition of each `if` whose only
  // arm raises: checks of what should hold (stripped by `python -O`), not the work of a step.
  std::vector<std::pair<uint32_t, uint32_t>> checks;
  // [first, last] lines of each `except` clause: its body runs only after a failure.
  std::vector<std::pair<uint32_t, uint32_t>> handlers;
  // [first, last] lines of each `if` arm taken only while exporting or tracing the model: the
  // condition is `torch.onnx.is_in_onnx_export()`, `torch.jit.is_tracing()` or a flag whose name
  // says ONNX (`self.onnx_trace`), not negated. The arm runs when the graph is recorded, once.
  std::vector<std::pair<uint32_t, uint32_t>> exporting;
  // [first, last] lines of each statement whose values only go to output: a call of `print`,
  // a logger (`logger.info`, `logging.warning`), `self.log`/`wandb.log`/`log_*(...)`, a
  // summary writer's `add_*`, a progress bar's `set_postfix`/`set_description`, an
  // `*meter.*(...)`; an assignment to a metrics or logs dict (`metrics["loss"] = ...`).
  std::vector<std::pair<uint32_t, uint32_t>> logging;
};

// `imports`: the module-level imports (resolve `nn.Module`, `Function`).
FunctionRoles findFunctionRoles(TSNode root, std::string_view src, const Imports& imports);

// Why a function named `name` (its last part) is deliberate code ("`__repr__`"), or "".
std::string deliberateRole(std::string_view name);

// Whether a function so named (its last part) is per-step code by its name alone
// (`train_step`, `on_train_batch_end`): PyPrefilter keeps such functions and their callees.
bool namedAsPerStep(std::string_view name);
// Whether `why` (FunctionRoles::hot) makes a function hot by its name alone (stepByName's
// reasons: `validation_step`, `compute_loss`), not by its class, a registration or a caller.
bool hotByNameOnly(std::string_view why);
// For a hook (`why` is FunctionRoles::hot): the parameter, counted without `self`, that autograd
// hands a tensor in (`register_hook`'s gradient, `register_post_accumulate_grad_hook`'s
// parameter); -1 for other hooks and other reasons.
int hookTensorParam(std::string_view why);

// Whether an `if` condition spaces its arm out in time: a modulo (`step % N == 0`) or a name
// of a period (`log_interval`, `every_n_steps`, `log_freq`). The lowering marks such guards
// (model::Scope::interval); the deliberate-code policy reads callers' guards from text.
bool spacesOutInTime(std::string_view condition);

// Where `src` makes a function of its own hot by registering it, as the roles pass sees it:
// the offsets of per-step hook registrations' names (`register_forward_hook`;
// kHookRegistrations) and of class `forward` patches (`Cls.forward = f`, at `.forward`).
// Strings and comments are not told from code (over-approximate). PyPrefilter keeps the
// functions named there as per-step code, and the code that registers them.
std::vector<size_t> perStepRegistrations(std::string_view src);

}  // namespace sl::py
