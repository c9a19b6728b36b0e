// The user's frame when it is deeper than the recorder's backtraces reach.
//
// In a LibTorch program every CUDA call comes from libtorch, 10-30 frames below the user's line
// (operator, dispatcher, autograd, kernel wrapper). backtrace() that deep costs tens of µs per
// call. Instead, when a call's return address is in a library, the hook scans the
// thread's stack upward for words that are return addresses into the user's code: they lie in
// the executable text of a module that is not a library (streamlint/LibraryModules.h) and the
// bytes before them are a call instruction. The first is mostly the return address of the user's
// call into the library, on a live frame between the hook and the stack's top. But a library
// frame's padding can hold a stale one (a return address into library code that the program
// carries in its own text, such as a statically linked `operator new`), so the scan keeps the
// first few and the report takes the first that has a line in the user's sources.
#pragma once
#include <atomic>
#include <cstdint>

namespace sl::ip {

struct TextRanges {
  static constexpr int kMax = 32;
  int n = 0;
  uintptr_t lo[kMax] = {}, hi[kMax] = {};  // executable segments of the user's modules
  uintptr_t min = UINTPTR_MAX, max = 0;     // their hull: most stack words fail this first
  bool contains(uintptr_t a) const {
    if (a < min || a >= max) return false;
    for (int i = 0; i < n; ++i)
      if (a >= lo[i] && a < hi[i]) return true;
    return false;
  }
};

// The user's modules loaded with the program (null before captureUserText, with scans off, or
// when the program has none).
const TextRanges* userText();
void captureUserText();

// Whether the bytes before `ra` (inside `text`) encode a call: `call rel32`, or `call r/m64` in
// one of its register and memory forms.
bool callPrecedes(const TextRanges& text, uintptr_t ra);

// Where the first `max` words in [from, to) that are return addresses into `text` are (a repeat of
// the previous one's value skipped), into `at`; returns how many.
int scanForReturns(const TextRanges& text, const uintptr_t* from, const uintptr_t* to,
                   const uintptr_t** at, int max);

// Whether `a` is a return address into `text`.
inline bool isReturnInto(const TextRanges& text, uintptr_t a) {
  return text.contains(a) && callPrecedes(text, a);
}

// What the call before return address `ra` called when it is a direct call (E8 rel32), else 0.
// Only for an `ra` isReturnInto accepted (its bytes are in the user's text).
inline uintptr_t directCallee(uintptr_t ra) {
  const auto* b = reinterpret_cast<const uint8_t*>(ra);
  if (b[-5] != 0xE8) return 0;
  int32_t rel;
  __builtin_memcpy(&rel, b - 4, 4);
  return ra + uintptr_t(intptr_t(rel));
}

// The calling thread's stack: [lo, hi), hi its highest address. False when unknown.
bool stackBounds(uintptr_t& lo, uintptr_t& hi);

}  // namespace sl::ip
