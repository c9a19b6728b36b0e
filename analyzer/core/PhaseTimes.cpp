#include "core/PhaseTimes.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace sl {
namespace {
using Clock = std::chrono::steady_clock;
Clock::time_point last = Clock::now();  // the first phase starts with the process
}  // namespace

void phaseDone(const char* name) {
  static const bool on = [] {
    const char* v = std::getenv("STREAMLINT_PHASE_TIMES");
    return v && *v;
  }();
  if (!on) return;
  const Clock::time_point now = Clock::now();
  std::fprintf(stderr, "streamlint: phase %-10s %7.3f s\n", name, std::chrono::duration<double>(now - last).count());
  last = now;
}

}  // namespace sl
