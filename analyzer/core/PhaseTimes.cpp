#include "core/PhaseTimes.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace sl {
namespace {
using Clock = std::chrono::steady_clock;
Clock::time_point last = Clock::now();  // the first phase starts with the process
long lastFaults = 0;

// Minor page faults of the process so far: fresh memory costs one each (~15 us on some VMs).
long minorFaults() {
  rusage u{};
  return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_minflt : 0;
}
}  // namespace

void phaseDone(const char* name) {
  static const bool on = [] {
    const char* v = std::getenv("STREAMLINT_PHASE_TIMES");
    return v && *v;
  }();
  if (!on) return;
  const Clock::time_point now = Clock::now();
  const long faults = minorFaults();
  std::fprintf(stderr, "streamlint: phase %-10s %7.3f s %7ld page faults\n", name,
               std::chrono::duration<double>(now - last).count(), faults - lastFaults);
  last = now, lastFaults = faults;
}

}  // namespace sl
