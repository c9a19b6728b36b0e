// Closures that run as often as the code calling them (issue 12 recall, lmdeploy adac4b18).
//
// Engine and training code often names a loop's body, or a step's part, as a nested function:
//     def send_all(outputs):
//         def send(out):
//             vals = out.logprobs.tolist()     # runs once per output
//         for out in outputs:
//             send(out)
// The closure's syncs stall the GPU as often as its caller's own would, but SL302 only saw
// loop bodies and per-step functions. After a module is lowered:
//   * a closure (a function defined inside another function) that its enclosing function, or
//     a sibling closure, calls inside a loop, not under an interval guard, gets
//     Function::perIteration: SL302 judges its implicit syncs as if they sat in that loop
//     (anywhere in the body, an `if` arm too, exactly as in the loop itself);
//   * a closure that per-step code (`forward`, a hook: Function::hot, not itself hot through a
//     caller) calls on every call (no `if`/`try` arm or guard around the call, not after an
//     early return) is hot through its caller, like a helper of the same file
//     (Function::hotViaCaller: only what it does on every call counts).
//   * a method that a method of its own class calls as `self.m(...)` inside a loop, handing it a
//     GPU tensor (medium or more), gets Function::perIteration too: the loop's body written as
//     a method (fairseq2 c7bb1387: `self._search_beam(beam, lprobs)` per beam and step). Only
//     from an innermost loop: an outer loop (over the chunks of a long video, each running the
//     whole denoising loop) spreads a call's cost over its inner loop's work.
// Not module-level helpers: one called from a loop is often set-up (one call per layer, per
// file), while a nested function or a sibling method handed the loop's GPU data is written for
// the code around its call. Callers that are deliberate code (`__repr__`, one-time set-up by
// name) mark nothing, nor are deliberate methods marked.
#pragma once
#include "model/StreamModel.h"

namespace sl::py {

void markHotClosures(model::Module& m);

}  // namespace sl::py
