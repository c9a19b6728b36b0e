// The report's read of a log without holding its calls or GPU records as read. A first pass
// (readLog with a no-op ReadOptions::onCall) reads every other record: code objects, strings,
// modules, clocks, windows, collectives, sanitize records, and counts the calls. streamTimeline
// then reads the file twice more: once to queue the calls' native sites for the symbolizer
// (batched: one addr2line per module), once to build the timeline and SL901's sites from each
// call as it is read. What stays is the timeline (HostCall, GpuOp): the raw records (104 + 64
// bytes each, plus their return addresses) were ~60 % of the report's peak on long logs.
#pragma once
#include <string>

#include "runtime/HostBlocking.h"
#include "runtime/LogReader.h"
#include "runtime/Symbolizer.h"
#include "runtime/Timeline.h"

namespace sl::runtime {

// `meta`: the log as the first pass read it (its path, its records other than calls and GPU
// records); `keep`: the same filter that pass used. `sl901`, when given, is fed every kept call.
// False (with `error`) when the file cannot be read again or changed between the passes.
bool streamTimeline(ProcessLog& meta, bool (*keep)(const slog::ApiRecord&), Symbolizer& sym,
                    HostBlockingSites* sl901, ProcessTimeline& out, std::string& error);

}  // namespace sl::runtime
