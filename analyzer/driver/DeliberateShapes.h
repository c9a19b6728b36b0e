// Shapes of deliberate host syncs that only the statement's text can tell (issue 12, precision).
// SL302 reports a read, upload or wait in a loop or in per-step code; hand-checked findings on
// 21 real projects (bench/precision/) show three shapes that maintainers keep on purpose:
//
//  - the host needs the values, read in one go: a whole tensor turned into host values once per
//    step (`sizes.tolist()` for torch.split or all_to_all's split sizes, `.cpu().numpy()`,
//    `pack_padded_sequence(x, lengths.cpu())`, whose contract wants CPU lengths). That single
//    bulk read is what SL302's own fix asks for when the values are read one by one in a loop;
//  - the exit test of a loop: `while active.any():`, `if finished.all(): break` — the host must
//    know whether to go on (data-dependent decoding, an early stop); only CUDA-graph conditional
//    nodes avoid it;
//  - once per call, outside the stepping loop: in a function that runs a loop stepping a
//    scheduler or an optimizer (`scheduler.step(...)` in a diffusion pipeline's `__call__`,
//    `optimizer.step()` in a training function), what comes before or after that loop runs once
//    per call (prompt encoding, reference images, VAE constants), and so does a method of the
//    module that is called only from such places.
//
// Like the other deliberate code these are performance notes left out by default and counted
// ("N hidden"); `--check-deliberate-code` shows them.
#pragma once
#include <string>
#include <string_view>

#include "core/Finding.h"
#include "model/StreamModel.h"

namespace sl {

// Why SL302's finding `f` of Python module `m` (whose text is `src`) has one of the shapes
// above, or "" when it has none.
std::string deliberateShapeReason(const Finding& f, const model::Module& m, std::string_view src);

}  // namespace sl
