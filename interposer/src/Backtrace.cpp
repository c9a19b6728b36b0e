#include "Backtrace.h"

#include <dlfcn.h>
#include <unwind.h>

#include "RealDlsym.h"

namespace sl::ip {
namespace {

// The process's own unwinder, as glibc's backtrace() uses it (libgcc_s.so.1, which knows the
// frames registered at run time), not the copy linked into this library.
struct Unwinder {
  _Unwind_Reason_Code (*backtrace)(_Unwind_Trace_Fn, void*) = nullptr;
  _Unwind_Ptr (*ip)(_Unwind_Context*) = nullptr;
  _Unwind_Word (*cfa)(_Unwind_Context*) = nullptr;
};

const Unwinder& unwinder() {
  static const Unwinder u = [] {
    Unwinder w;
    void* h = dlopen("libgcc_s.so.1", RTLD_LAZY);
    if (!h) return w;
    w.backtrace = reinterpret_cast<decltype(w.backtrace)>(realDlsym(h, "_Unwind_Backtrace"));
    w.ip = reinterpret_cast<decltype(w.ip)>(realDlsym(h, "_Unwind_GetIP"));
    w.cfa = reinterpret_cast<decltype(w.cfa)>(realDlsym(h, "_Unwind_GetCFA"));
    if (!w.backtrace || !w.ip || !w.cfa) w = Unwinder{};
    return w;
  }();
  return u;
}

struct Walk {
  const Unwinder* u;
  void** ips;
  uintptr_t* slots;
  int max, seen = 0, n = 0;
};

// A context's IP is the return address of its frame, and the call pushed it just below that
// frame's CFA (x86-64). The first two are the unwinder's own frame and ours (unwindFrames, whose
// return address is into the hook); the hook's return address comes next.
_Unwind_Reason_Code step(_Unwind_Context* ctx, void* arg) {
  auto* w = static_cast<Walk*>(arg);
  if (w->seen++ < 2) return _URC_NO_REASON;
  w->ips[w->n] = reinterpret_cast<void*>(w->u->ip(ctx));
  w->slots[w->n] = w->u->cfa(ctx) - sizeof(void*);
  return ++w->n == w->max ? _URC_NORMAL_STOP : _URC_NO_REASON;
}

}  // namespace

__attribute__((noinline)) int unwindFrames(void** ips, uintptr_t* slots, int max) {
  const Unwinder& u = unwinder();
  if (!u.backtrace) return 0;
  Walk w{&u, ips, slots, max};
  u.backtrace(step, &w);
  asm volatile("");  // not a tail call: this frame must stay on the stack
  if (w.n > 1 && !ips[w.n - 1]) --w.n;  // the null "return address" above _start, as backtrace() drops it
  return w.n;
}

}  // namespace sl::ip
