// What a device kernel (`@triton.jit`) does with the memory its parameters point to.
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sl::py {

struct KernelEffects {
  std::vector<std::string> params;  // in order; `*args`/`**kw` left out
  uint64_t loads = 0, stores = 0;   // bit i: params[i]
};

// Reads the kernel definition `def`: tl.load / tl.store / tl.atomic_* (and a descriptor's
// .load/.store) through the pointer they are given, followed back to the parameter it is based
// on — pointer arithmetic keeps its pointer operand (`a_ptr + offs * stride` is a_ptr's, the
// stride is an offset), block pointers and tensor descriptors keep their base, locals keep what
// they were assigned. A parameter whose memory nothing here touches has no bit.
KernelEffects kernelEffects(TSNode def, std::string_view src);

}  // namespace sl::py
