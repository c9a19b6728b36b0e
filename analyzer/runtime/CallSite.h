// Where a recorded CUDA call came from: the user's Python line when the recorder captured one,
// else the first native frame outside CUDA/torch/system modules, symbolized offline. Two passes,
// because symbolization is batched: queue every call, run the symbolizer, then resolve.
#pragma once
#include <string>

#include "runtime/LogReader.h"
#include "runtime/Symbolizer.h"

namespace sl::runtime {

struct CallSite {
  std::string path;      // source file; the module path when no line is known; "<unknown>"
  uint32_t line = 0;
  std::string function;
  std::string native;    // "module+0xOFFSET" for native sites
  bool python = false;
};

// Pass 1: queue the call's native user frame (no-op for calls with a Python line).
void queueCallSite(const ProcessLog& log, const ApiCall& c, Symbolizer& sym);
// Pass 2, after sym.run().
CallSite resolveCallSite(const ProcessLog& log, const ApiCall& c, const Symbolizer& sym);

}  // namespace sl::runtime
