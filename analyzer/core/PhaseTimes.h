// The wall time and the minor page faults of each phase of a check, on stderr, when the
// environment sets STREAMLINT_PHASE_TIMES (bench/README.md): which part of a slow run to look
// at, without a profiler. Silent otherwise; one getenv per process.
#pragma once

namespace sl {

// Ends the phase that began at the previous call (or at the first call) and reports it as
// `name`. Call from one thread.
void phaseDone(const char* name);

}  // namespace sl
