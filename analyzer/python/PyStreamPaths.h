// Names a Python file uses as CUDA streams somewhere: the receivers of `X.wait_stream(...)`,
// `X.wait_event(...)`, `X.record_event(...)` and the arguments of `wait_stream(X)`,
// `record_stream(X)`, `cuda.stream(X)`, `set_stream(X)`, as written ("self.comm_stream",
// "ctx.ag_stream", "stream").
//
// The lowering learns a stream's kind in source order, so a stream handed to a helper before
// the file's first wait on it (`gather(x, ctx.ag_stream)`, joined with
// `current.wait_stream(ctx.ag_stream)` after) would be of unknown kind at the call. A name the
// file uses as a stream anywhere is a stream wherever nothing more is known of it.
// A scan of the text: cheap, and independent of what the prefilter parses.
#pragma once
#include <string>
#include <string_view>
#include <unordered_set>

namespace sl::py {

std::unordered_set<std::string> streamPaths(std::string_view src);

}  // namespace sl::py
