#include "runtime/RuntimeRules.h"

#include <cstdio>

namespace sl::runtime {

std::string humanBytes(uint64_t n) {
  char buf[32];
  if (n >= (1ull << 20)) snprintf(buf, sizeof buf, "%.2f MiB", double(n) / (1 << 20));
  else if (n >= 1024) snprintf(buf, sizeof buf, "%.1f KiB", double(n) / 1024);
  else snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(n));
  return buf;
}

std::string percentText(double share, int decimals) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.*f %%", decimals, share * 100);
  return buf;
}

std::string humanTime(double ns) {
  char buf[64];
  double us = ns / 1e3;
  if (us >= 1e6) snprintf(buf, sizeof buf, "%.2f s", us / 1e6);
  else if (us >= 1e3) snprintf(buf, sizeof buf, "%.2f ms", us / 1e3);
  else snprintf(buf, sizeof buf, "%.1f us", us);
  return buf;
}

void placeAt(Finding& f, const ProcessTimeline& t, int loc) {
  if (loc < 0 || loc >= int(t.locations.size())) {
    f.path = t.exe.empty() ? "<unknown>" : t.exe;
    f.loc = Loc{0, 0};
    return;
  }
  const SourceLoc& s = t.locations[loc];
  f.path = s.path;
  f.loc = Loc{s.line, s.line ? 1u : 0u};
  if (!s.function.empty()) f.properties["function"] = s.function;
}

}  // namespace sl::runtime
