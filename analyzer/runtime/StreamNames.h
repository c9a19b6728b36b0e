// Streams named as the source names them (issue 32): "stream 14" in a report means nothing to the
// user whose code says `backward_stream`. A stream's name is read from the user lines that queued
// work on it: the enclosing `with torch.cuda.stream(NAME):` of a Python line; the stream argument
// of a C++/CUDA launch or async call (`<<<g, b, 0, NAME>>>`, `cudaMemcpyAsync(..., NAME)`), else
// a `CUDAStreamGuard guard(NAME)` in an enclosing block (LibTorch).
// The label then reads "backward_stream (stream 14)" everywhere (StreamInfo::label).
#pragma once
#include <string>

#include "runtime/Timeline.h"

namespace sl::runtime {

// Sets StreamInfo::name of t's non-default streams whose launching lines name one variable most
// often. Reads the sources at t.locations' paths (after relocateSources); unreadable ones name
// nothing.
void nameStreams(ProcessTimeline& t);

// The stream variable a source line's work goes to, from the line and the lines above it
// (`lines[at]` is the line; 0-based); "" when none is named. Exposed for tests.
std::string streamVariableAt(const std::vector<std::string>& lines, size_t at, bool python);

}  // namespace sl::runtime
