// Joins static findings (from `streamlint check`, or a SARIF file made elsewhere) with what a run
// measured. Every static finding gets `properties.runtime`:
//   {"status": "measured" | "confirmed" (no call at the line, but a race the run saw named it:
//    "confirmedBy") | "not exercised", "calls": N, "blockedMicros": x, "gpuMicros": y,
//    "operationsByStream": {...}, "apis": {...}, "measuredBy": ["SL903", ...], ...}
// and a sentence appended to its message; rule-specific evidence: SL401 the streams backward's
// work ran on, SL501 how long the GPU kept running after the timed interval, SL303 the cudaMalloc
// calls and bytes (allocator pool growth) at the line.
#pragma once
#include <string>
#include <vector>

#include "core/Finding.h"
#include "runtime/RuntimeRules.h"

namespace sl::runtime {

// Static and runtime paths name the same file when their trailing components agree (a log made
// on another machine has other absolute paths): true when at least min(3, shorter) agree.
bool samePath(const std::string& a, const std::string& b);

// A log names the sources by the paths of the machine it was recorded on. Each location whose file
// is not there is looked up by its trailing components under the current directory and `roots`
// (the PATHs given to `report`); found ones are rewritten, relative to the current directory.
void relocateSources(ProcessTimeline& t, const std::vector<std::string>& roots);
std::string localSourcePath(const std::string& path, const std::vector<std::string>& roots);
// The PATHs given to `report`, for lookups made before locations are relocated (the symbolizer's
// test for nvcc's kernel wrapper reads the source line).
void setSourceRoots(std::vector<std::string> roots);
const std::vector<std::string>& sourceRoots();

void pairWithRun(std::vector<Finding>& staticFindings, const RunData& run,
                 const std::vector<Finding>& measured);

// Reads the results of a SARIF 2.1.0 log (as `streamlint check --format sarif` writes) back into
// findings. False with `error` naming the file and the reason.
bool readSarifFindings(const std::string& path, std::vector<Finding>& out, std::string& error);

// Everything ranked by measured cost (properties.costMicros or runtime.costMicros), largest
// first; unmeasured static findings after the measured ones, in source order. Measured one-time
// set-up (SL901 `phase` "set-up") comes after every per-step cost, and code inside libraries
// (`insideLibrary`) after the user's own lines of the same phase.
void rankByCost(std::vector<Finding>& findings);

}  // namespace sl::runtime
