// Helpers that run every step because per-step code in another file calls them.
//
// PyFunctionRoles finds per-step functions (`forward`, an optimizer's `step`, a hook) and the
// helpers of the same file they call on every call. A helper imported from another module of
// the project (`from .kernels import offsets_for_groups`, `pkg.utils.pad(x)`) runs every step
// just as well, and its implicit syncs (`torch.tensor([0], device=x.device)`, `.item()`) stall
// the GPU as often. So after every file is lowered, a call of a per-step function that
//   * hands the callee a CUDA tensor or its device (the Call event's `value` names it: the work is on the GPU,
//     and the caller's evidence is what makes the prefilter keep it: the call is seen with and
//     without the prefilter),
//   * runs on every call (not in an `if`/`try` arm or a guarded block, not after an early return),
//   * reaches a top-level function of another module (an absolute or relative import, also one
//     re-exported by its package's `__init__.py`: `from .quant import f` there),
// makes that function hot through its caller (Function::hotViaCaller: only what it does on
// every call counts), one level, like the same-file rule; helpers named as set-up or logging
// are left alone.
//
// The prefilter decides file by file, so a helper that nothing in its own file marks may not
// have been parsed: such modules are lowered again with those helpers given to the prefilter
// as roots (`unparsed`; PyPrefilter.h), then `mark` sets the roles. Only the file that defines
// a missing helper is lowered again.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/StreamModel.h"
#include "python/PythonFrontend.h"

namespace sl {

struct HotHelperCall {
  size_t callee = 0;       // index of the module defining the helper
  std::string function;    // the helper's name in it (a top-level function)
  std::string why;         // the role to give it ("called every step from `forward()` in ...")
  uint32_t cudaArgs = 0;   // positional arguments that caller passes CUDA tensors (Event::cudaArgs)
  std::string caller;      // "`forward()` in pkg/attn.py"
};

// `texts[i]` is the source `modules[i]` was lowered from.
std::vector<HotHelperCall> findHotHelperCalls(const std::vector<const model::Module*>& modules,
                                              const std::vector<std::string_view>& texts);

// Modules holding a helper of `calls` that their lowering left out (the prefilter dropped it).
std::vector<size_t> unparsedHelpers(const std::vector<const model::Module*>& modules,
                                    const std::vector<HotHelperCall>& calls);

// Gives each helper its role (the first caller's reason wins; already hot functions keep theirs).
void markHotHelpers(const std::vector<model::Module*>& modules, const std::vector<HotHelperCall>& calls);

// The modules worth lowering again with the CUDA tensors their per-step callers pass
// (python/PythonFrontend.h CallerInputs): module index -> function -> parameters. Only helpers
// with a host sync of low confidence (on an annotated tensor parameter's guess) are listed:
// a per-step helper's syncs are what its role is about, and lowering again costs a parse.
std::unordered_map<size_t, py::CallerInputs> callerInputs(const std::vector<const model::Module*>& modules,
                                                          const std::vector<HotHelperCall>& calls);

}  // namespace sl
