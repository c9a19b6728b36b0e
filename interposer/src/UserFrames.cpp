#include "UserFrames.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "streamlint/LibraryModules.h"

extern "C" void* __libc_stack_end;  // glibc: the main thread's initial stack pointer

namespace sl::ip {

namespace {

std::atomic<const TextRanges*> g_userText{nullptr};

int addUserModule(dl_phdr_info* info, size_t, void* p) {
  auto* t = static_cast<TextRanges*>(p);
  const char* name = info->dlpi_name;
  // The main program has an empty name; everything else is judged by its file name.
  if (name && *name && slog::isLibraryModule(name)) return 0;
  for (int i = 0; i < info->dlpi_phnum && t->n < TextRanges::kMax; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    uintptr_t lo = info->dlpi_addr + ph.p_vaddr, hi = lo + ph.p_memsz;
    t->lo[t->n] = lo;
    t->hi[t->n] = hi;
    t->n++;
    if (lo < t->min) t->min = lo;
    if (hi > t->max) t->max = hi;
  }
  return 0;
}

}  // namespace

const TextRanges* userText() { return g_userText.load(std::memory_order_acquire); }

void captureUserText() {
  // Called once, from the library's constructor: under LD_PRELOAD every object the program links
  // is mapped by then, and none of them is ever unloaded (the program holds them), so the scan
  // may read their text at any time. A library the program dlopens later could be dlclosed and
  // unmapped under a scan: it is left out (its calls are placed at its caller in these modules).
  static TextRanges table;
  const char* v = getenv("SL_STACK_SCAN");  // 0: frames as backtrace() finds them, no scans
  if (g_userText.load() || (v && *v == '0')) return;
  dl_iterate_phdr(addUserModule, &table);
  if (table.n) g_userText.store(&table, std::memory_order_release);
}

bool callPrecedes(const TextRanges& text, uintptr_t ra) {
  if (!text.contains(ra - 7) || !text.contains(ra - 1)) return false;  // the bytes we read
  const auto* b = reinterpret_cast<const uint8_t*>(ra);
  if (b[-5] == 0xE8) return true;  // call rel32
  // call r/m64 is FF /2: the ModRM byte's reg field is 2. The instruction is 2 bytes (register,
  // or [reg]) up to 7 (SIB + disp32); a REX prefix before FF does not change where FF sits.
  for (int len = 2; len <= 7; ++len) {
    if (b[-len] != 0xFF) continue;
    uint8_t modrm = b[-len + 1];
    if (((modrm >> 3) & 7) != 2) continue;
    int mod = modrm >> 6, rm = modrm & 7;
    int want = 2;  // FF + ModRM
    if (mod != 3 && rm == 4) want += 1;  // SIB
    if (mod == 1) want += 1;
    else if (mod == 2 || (mod == 0 && rm == 5)) want += 4;
    else if (mod == 0 && rm == 4 && (b[-len + 2] & 7) == 5) want += 4;  // SIB with no base
    if (want == len) return true;
  }
  return false;
}

int scanForReturns(const TextRanges& text, const uintptr_t* p, const uintptr_t* to,
                   const uintptr_t** at, int max) {
  const uintptr_t lo = text.min, span = text.max - text.min;  // a - lo < span: a in the hull
  int n = 0;
  while (p < to && n < max) {
    // Nearly every word (data, heap and stack pointers, library addresses) is outside the hull
    // of the user's text: test four at a time without a branch per word.
    if (to - p >= 4 && !((p[0] - lo < span) | (p[1] - lo < span) | (p[2] - lo < span) | (p[3] - lo < span))) {
      p += 4;
      continue;
    }
    if ((n == 0 || *at[n - 1] != *p) && isReturnInto(text, *p)) at[n++] = p;
    ++p;
  }
  return n;
}

bool stackBounds(uintptr_t& lo, uintptr_t& hi) {
  if (syscall(SYS_gettid) == getpid()) {
    // The main thread: glibc would read /proc/self/maps for it. Its stack grows down from the
    // initial stack pointer by at most RLIMIT_STACK (mappings keep clear of that range).
    rlimit r{};
    uintptr_t limit = uintptr_t(1) << 30;
    if (getrlimit(RLIMIT_STACK, &r) == 0 && r.rlim_cur != RLIM_INFINITY && r.rlim_cur < limit) limit = r.rlim_cur;
    hi = reinterpret_cast<uintptr_t>(__libc_stack_end);
    lo = hi > limit ? hi - limit : 0;
    return hi != 0;
  }
  pthread_attr_t a;
  if (pthread_getattr_np(pthread_self(), &a) != 0) return false;
  void* base = nullptr;
  size_t size = 0;
  int rc = pthread_attr_getstack(&a, &base, &size);
  pthread_attr_destroy(&a);
  lo = reinterpret_cast<uintptr_t>(base);
  hi = lo + size;
  return rc == 0 && size != 0;
}

}  // namespace sl::ip
