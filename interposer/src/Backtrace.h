// A blocking call's native frames (syncs, allocations, blocking copies, stream creation), cached
// per (call site, stack depth).
//
// backtrace() costs ~1.7 µs per call (8 frames; 2-core VM, bench/sanitize/real/parts_cost.py).
// The unwinder also says where each return address sits: the word below its callee's canonical
// frame address. The same call site at the same stack depth reached through the same functions
// keeps its return addresses in the same words, so a later call reads those words and takes the
// cached frames when every one still holds its return address; a different path, or a frame of
// another size on the way (alloca), changes a word and the call unwinds again.
#pragma once
#include <cstdint>

#include "Recorder.h"
#include "UserFrames.h"

namespace sl::ip {

// Whether `sp` lies on the calling thread's own stack (its bounds looked up once per thread), not
// on an alternate signal stack: only there are the words above it the callers' frames.
inline bool onThreadStack(ThreadState* ts, uintptr_t sp) {
  if (ts->stackTop == 0 && !stackBounds(ts->stackLo, ts->stackTop)) ts->stackTop = 1;
  return sp >= ts->stackLo && sp < ts->stackTop;
}

// Up to `max` return addresses above the caller's frame, and the stack word holding each (the
// caller's own return address first). 0 when the process's unwinder (libgcc_s) is not at hand.
int unwindFrames(void** ips, uintptr_t* slots, int max);

// frames[] = the caller's return address `ra` and the return addresses above it; returns how many
// (at least 1). `raSlot`: the hook's return-address slot. Always inlined into the hook, so that
// unwindFrames' caller is the hook's own frame.
__attribute__((always_inline)) inline int blockingFrames(ThreadState* ts, void* ra, void** raSlot, void** frames,
                                                         void (*scrub)()) {
  constexpr int kMax = slog::kMaxFrames;
  auto sp = reinterpret_cast<uintptr_t>(raSlot);
  const bool onStack = onThreadStack(ts, sp);
  const void* key = onStack ? mixKey(ra, ts->stackTop - sp) : nullptr;
  BacktraceCacheEntry* e = onStack ? ts->btCache.find(key) : nullptr;
  if (e && e->n) {
    bool same = true;
    for (int i = 0; i < e->n; ++i) same &= raSlot[e->slot[i]] == e->frames[i];
    if (same) {
      for (int i = 0; i < e->n; ++i) frames[i] = e->frames[i];
      return e->n;
    }
  }
  uintptr_t slots[kMax];
  int n = unwindFrames(frames, slots, kMax);
  scrub();  // the unwinder's dead frames below ours held the return addresses it walked
  if (n < 1 || frames[0] != ra) {  // no unwinder, or not the layout assumed: the caller alone
    frames[0] = ra;
    return 1;
  }
  if (onStack) {
    if (!e) e = ts->btCache.claim(key);  // a stale entry is refilled, not doubled
    e->n = uint8_t(n);
    for (int i = 0; i < n; ++i) {
      uintptr_t off = (slots[i] - sp) / sizeof(void*);
      if (slots[i] < sp || slots[i] % sizeof(void*) || off > UINT16_MAX) e->n = 0;  // not cacheable
      e->slot[i] = uint16_t(off);
      e->frames[i] = frames[i];
    }
  }
  return n;
}

}  // namespace sl::ip
