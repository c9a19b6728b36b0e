// Recorder settings that `streamlint run` checks before it starts a program and the recorder
// reads inside it: the on-disk cap (SL_MAX_LOG_MB) and how long the log directory (SL_OUT_DIR)
// may be. Header-only and libc-only, like GpuTimingSpec.h.
#pragma once
#include <cstdint>
#include <cstdlib>

namespace sl::slog {

// The recorder's path buffer holds the directory, '/', the host name (64), '-', a pid and an
// ".N.slog" suffix: a longer directory would be cut and the log land in another one.
inline constexpr size_t kMaxOutDirBytes = 4096 - 128;

inline constexpr uint64_t kDefaultLogCapMb = 4096;

// SL_MAX_LOG_MB: a whole number of MiB, 0 for no cap (unset or empty: the default). "0.5", "abc" and "-1" are not sizes (they
// used to read as 0 and removed the cap).
inline bool parseLogCapMb(const char* s, uint64_t& bytes) {
  if (!s || *s < '0' || *s > '9') return false;
  char* end;
  unsigned long long mb = strtoull(s, &end, 10);
  if (*end || mb > (UINT64_MAX >> 20)) return false;
  bytes = uint64_t(mb) << 20;
  return true;
}

}  // namespace sl::slog
