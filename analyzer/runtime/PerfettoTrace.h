// The processes' timelines as a Chrome trace-event JSON file, the format ui.perfetto.dev
// ("Open trace file") and chrome://tracing open. Docs: docs/report.md.
//
// Tracks: each OS process is one trace process whose threads are its host threads (CUDA calls as
// slices); each GPU a process uses is one more trace process ("GPU 0 (rank 0 pid 1234)") whose
// threads are its streams (kernels, copies and sets as slices). Flow arrows join each launch
// call to the GPU work it queued. With sampled GPU timing the host process has one more track,
// "GPU timing windows (sampled)", a slice per window. Trace pids are assigned here, so logs of several hosts (same
// OS pid) never collide. Times are microseconds from the earliest event of all timelines; logs
// of one host share CLOCK_MONOTONIC, so their processes line up.
#pragma once
#include <ostream>
#include <vector>

#include "core/Finding.h"
#include "runtime/Timeline.h"

namespace sl::runtime {

// Findings (optional) become instant events ("ph":"i", category "finding") on the host thread
// of their line's first call, named "SL903 path:line" with the message, rule and severity as
// args: the report's findings where they happened, as Nsight Systems marks them.
void writePerfettoTrace(std::ostream& out, const std::vector<ProcessTimeline>& timelines,
                        const std::vector<Finding>& findings = {});

}  // namespace sl::runtime
