// Mechanical fixes for the rules whose remedy is one obvious edit, computed from the finding and
// its file's text after the rules ran (rules stay judges of the model):
//   SL103  `.default_stream()` -> `.current_stream()` (C++: getDefaultCUDAStream ->
//          getCurrentCUDAStream), the occurrence at the finding;
//   SL501  a device sync on its own line before the statement that reads the closing clock
//          (`torch.cuda.synchronize()`; C++: `cudaDeviceSynchronize();` or
//          `torch::cuda::synchronize();`), only where that line is a plain statement start.
// A fix is offered only where it is safe by construction; otherwise the finding has none.
// Writing them (checked against the file as it is now) is driver/FixApply.h.
#pragma once
#include <string>

#include "core/Finding.h"
#include "core/TextEdits.h"

namespace sl {

// Adds `f.fixes` when the rule has a mechanical fix at that place of `file`.
void attachFix(Finding& f, const SourceFile& file);

}  // namespace sl
