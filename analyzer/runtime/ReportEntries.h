// What the report lists as entries (issue 32): one entry per line and problem, the run's
// one-time set-up as one note below the per-step costs.
#pragma once
#include <vector>

#include "core/Finding.h"

namespace sl::runtime {

// A static finding whose line a measured rule of the same problem also reported (SL401 and
// SL903 on a `backward()` line; SL601 and SL905 on a legacy-stream launch; a static finding and
// SL902) becomes one entry: the static finding with pairing's measured clause, then "; confirmed
// at runtime (SL903): <what the run showed>", properties.runtime.confirmedBy = {rule, path, line, message, properties}; the measured
// finding is removed from `measured`; runtime.status stays "measured". Run after pairWithRun.
void mergeConfirmed(std::vector<Finding>& statics, std::vector<Finding>& measured);

// SL901 sites that are one-time set-up (properties.phase "set-up") are notes, not warnings: they
// cost once, not per step. fold: they also become one note entry, at the costliest user line,
// listing every site as a related note (properties.sites keeps each one's properties); for
// text and the page. Without fold (JSON, SARIF) each site stays a result of severity note.
void foldSetUp(std::vector<Finding>& findings, bool fold);

}  // namespace sl::runtime
