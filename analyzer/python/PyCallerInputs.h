// GPU tensors a function of the same module is given by its callers (issue 12 recall: fairseq
// 1df3e50a, `finalize_hypos(step, eos_bbsz_idx, ...)` called from the decoding loop).
//
// A helper's parameters are of unknown device: `bbsz_idx.tolist()` in it is a low-confidence
// guess. When a function of the same module calls it with a CUDA tensor (medium confidence or
// more: the Call event's cudaArgs) at a position, that parameter holds a GPU tensor on that
// call: as sure as the caller's argument (medium), with the caller named in its chain. Only
// helpers where it may matter are listed: one with a host sync of low confidence. The
// module is then lowered again with those inputs (python/PythonFrontend.h CallerInputs), a few
// rounds at most, so a chain of helpers (`forward` -> `_no_repeat_ngram(tokens)` ->
// `calculate_banned_tokens(tokens)`) is followed.
#pragma once
#include "model/StreamModel.h"
#include "python/PythonFrontend.h"

namespace sl::py {

// Adds to `inputs` what the module's own calls pass; true when something new was added.
bool addSameModuleInputs(const model::Module& m, CallerInputs& inputs);

}  // namespace sl::py
