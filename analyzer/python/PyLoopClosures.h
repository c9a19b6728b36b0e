// Closures called on every iteration of a loop (issue 12 recall, lmdeploy adac4b18).
//
// Engine and training code often names a loop's body as a nested function and calls it per
// item:
//     def send_all(outputs):
//         def send(out):
//             vals = out.logprobs.tolist()     # runs once per output
//         for out in outputs:
//             send(out)
// The closure's syncs stall the GPU as often as the loop body's own would, but SL302 only saw
// loop bodies. After a module is lowered, a closure (a function defined inside another
// function) that its enclosing function, or a sibling closure, calls inside a loop, not under an
// interval guard, gets Function::perIteration: SL302 then judges its implicit syncs as if they
// sat in that loop (anywhere in the body, an `if` arm too, exactly as in the loop itself).
// Only closures: a module-level helper called from a loop is often set-up (one call per layer,
// per file), while a nested function is written for the loop around its call. Callers that
// are deliberate code (`__repr__`, one-time set-up by name) mark nothing.
#pragma once
#include "model/StreamModel.h"

namespace sl::py {

void markLoopClosures(model::Module& m);

}  // namespace sl::py
