// The recorder's GPU timing settings as written in the environment (SL_GPU_TIMING, SL_GPU_SAMPLE,
// SL_GPU_FIRST) and on `streamlint run`'s command line. Header-only and libc-only: parsed by the
// recorder inside the program and checked by `streamlint run` before it starts one.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "streamlint/LogFormat.h"

namespace sl::slog {

struct GpuSample {
  uint64_t onNs = 100'000'000;      // each window lasts this long
  uint64_t everyNs = 2'000'000'000; // and one begins this often
  uint64_t firstNs = 10'000'000'000; // the first window, from the first CUDA call
};

// "100ms", "2s", "500us", "1.5" (seconds): a duration in ns; false when it is not one.
inline bool parseDuration(const char* s, uint64_t& ns) {
  char* end;
  double v = strtod(s, &end);
  if (end == s || !(v >= 0) || v > 1e6) return false;
  double unit = !*end || !strcmp(end, "s") ? 1e9 : !strcmp(end, "ms") ? 1e6 : !strcmp(end, "us") ? 1e3 : 0;
  if (unit == 0) return false;
  ns = uint64_t(v * unit);
  return true;
}

// "ON/EVERY", e.g. "100ms/2s", with 0 < ON < EVERY.
inline bool parseSample(const char* s, GpuSample& out) {
  const char* slash = strchr(s, '/');
  char on[64] = {0};
  if (!slash || size_t(slash - s) >= sizeof on) return false;
  memcpy(on, s, size_t(slash - s));
  uint64_t onNs = 0, everyNs = 0;
  if (!parseDuration(on, onNs) || !parseDuration(slash + 1, everyNs) || onNs == 0 || everyNs <= onNs)
    return false;
  out.onNs = onNs;
  out.everyNs = everyNs;
  return true;
}

// "sampled", "always" or "off"; false for anything else.
inline bool parseGpuTiming(const char* s, GpuTiming& out) {
  if (!strcmp(s, "sampled")) out = GpuTiming::Sampled;
  else if (!strcmp(s, "always")) out = GpuTiming::Continuous;
  else if (!strcmp(s, "off")) out = GpuTiming::Off;
  else return false;
  return true;
}

}  // namespace sl::slog
