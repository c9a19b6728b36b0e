// Python source -> StreamModel, via tree-sitter and the tree-sitter-python grammar.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "config/ProjectKnowledge.h"
#include "core/Finding.h"
#include "core/SourceFile.h"
#include "model/StreamModel.h"

namespace sl::py {

// Lowers every function, method and the module-level code of `file`. Syntax errors yield a
// "parse-error" diagnostic and the parts that parsed are still lowered. Thread-safe.
// `knowledge` (from the project's config) maps project helpers onto torch APIs.
// `prefilter`: parse and lower only the code that can matter to a rule (PyPrefilter.h); the
// findings are the same, the model omits functions that can have no events, and syntax
// errors in code that is not parsed go unreported.
// `projectUsesCuda`: some file of the project names CUDA, so a tensor of unknown device in any
// of its files may be on the GPU (model code rarely says "cuda"; the training script does).
// `callers`: parameters that per-step code of other modules passes CUDA tensors to, by
// function name (driver/HotHelpers.h); an annotated tensor parameter among them is as sure a
// CUDA tensor as the caller's argument (medium), not a bare annotation (low).
struct CallerInput {
  size_t index = 0;  // positional parameter
  std::string why;   // "a CUDA tensor is passed every step by `forward()` in pkg/attn.py"
};
using CallerInputs = std::unordered_map<std::string, std::vector<CallerInput>>;
// `roots`: top-level functions the prefilter keeps whatever they hold (PyPrefilter.h).
model::Module lowerPython(const SourceFile& file, std::vector<Finding>& diagnostics,
                          const ProjectKnowledge& knowledge = {}, bool prefilter = false,
                          bool projectUsesCuda = false, const CallerInputs* callers = nullptr,
                          const std::vector<std::string>* roots = nullptr);

// The text names CUDA: `cuda`, an accelerator, or a non_blocking copy.
bool namesCuda(std::string_view text);
// The text names Megatron's model-parallel state (parallel_state, tensor_parallel, mpu).
bool namesModelParallel(std::string_view text);

}  // namespace sl::py
