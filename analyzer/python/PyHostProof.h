// Tensors a function proves to be on the host by how it combines them (issue 12 precision,
// TransformerEngine `pad_thd_sequences_for_cp`, judged wrong in bench/precision/verdicts.tsv).
//
// torch refuses to mix a CUDA tensor with a CPU tensor of one or more dimensions in one op
// (only a CPU scalar may join GPU work). So when a function adds a name to a tensor it builds
// on the CPU itself (`seqlens + torch.tensor(padding_amounts)`, `torch.cat([torch.tensor([0]),
// padded])`: a factory without `device=`, of a list or a shape), that name holds a CPU tensor,
// and so do the names it was computed from by slicing and arithmetic
// (`seqlens = cu_seqlens[1:] - cu_seqlens[:-1]`). A parameter proven so is a host tensor for the
// whole function: its `Tensor` annotation's guess that it lives on the GPU is dropped, and
// reads of it (`l.item()` per sequence) are no host syncs. Nested functions are not looked into;
// the factory is recognised written as `torch.<factory>(`, right of an operator or first in a list.
#pragma once
#include <string>
#include <string_view>
#include <unordered_set>

#include "python/PyImports.h"
#include "python/TsNode.h"

namespace sl::py {

std::unordered_set<std::string> hostProvenNames(TSNode body, std::string_view src, const Imports& imports);

}  // namespace sl::py
