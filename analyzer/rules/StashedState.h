// Tensors kept alive in a container of object state across streams (issue 31).
//
// Offloading and overlap code keeps a tensor that another stream still uses in a stash on
// `self` and drops it later, often in another method or hook: the activation offloader puts
// the activation its side stream copies to the host in `self.fwd_stash[id] = (t, ev)`, and a
// later hook deletes the entry after `self.s0.wait_event(ev)`. Deleting the entry frees the
// tensor's memory for the stream that allocated it, so before the `del` that stream must wait
// for the other stream's use (an event wait or a stream wait by the allocating stream, a host
// sync), or the tensor must be recorded for that stream (record_stream).
//
// Streams of a stashed value `t` in the function that stores it:
//  - allocated in a side-stream region (a copy in, an op) and handed out (returned), used on
//    the current stream, or kept for the class's consumer (some method joins that side stream
//    into the current one): allocated on that side stream, used on the current one;
//  - produced on the current stream or taken from elsewhere (an argument, a hook's input),
//    and read by GPU work on a side stream: allocated on the current stream, used on the side one.
#pragma once
#include <vector>

#include "model/StreamModel.h"

namespace sl::rules {

// An entry of a stash deleted with nothing ordering the stream that allocated what it held
// after the stream that used it.
struct EarlyRelease {
  const model::Function* storer = nullptr;
  const model::Function::Stash* stash = nullptr;
  Loc useAt;                    // the use on the other stream in `storer`; else (handedOut) the allocation
  bool handedOut = false;       // allocated on a side stream for the current stream's work (returned, or joined)
  model::StreamRef allocated;   // the stream the value was allocated on
  model::StreamRef used;        // the stream that used it
  const model::Function* releaser = nullptr;
  Loc releaseAt;                // the `del`
};
std::vector<EarlyRelease> earlyStashReleases(const model::Module& m);

}  // namespace sl::rules
