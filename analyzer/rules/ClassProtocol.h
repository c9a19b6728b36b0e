// A class's object state judged as a protocol between its methods (issue 31).
//
// Stream code keeps its streams, events and buffers on `self`: a prefetcher's `preload()` fills
// `self.next_input` on a side stream and `next()` hands it to the caller's stream; a bucketed
// reducer's hook copies gradients into `self.buffer` on the current stream and `reduce()`
// all-reduces it on `self.comm_stream`. The write and the read sit in different methods, so no
// function-level rule sees both. Here each `self.` attribute is one abstract location shared by
// all methods of the class; each method is summarised by the accesses it makes to those
// locations (which stream, write or read, allocation) and by the ordering it issues (waits,
// host syncs, record_stream). A pair of accesses from two methods on different streams is
// judged over every order the methods can run in: it is ordered only when some method of the
// class issues the ordering edge (a wait of the consumer's stream on the producer's, an event
// wait, a synchronize) or the writer/reader do it around the access. With no edge anywhere in
// the class, the caller would have to know the class's internal streams to order them.
//
// Policy, with the reason for each entry (kept here, in one place):
//  - `__init__` runs once, before any other method: what it writes on the current stream is
//    long done when per-step work on a side stream reads it (SL101 pairs skip it), and what it
//    allocates is never allocated again, so its memory is never handed back (SL201 skips it).
//    A reader that is `__init__` runs before every writer it does not call itself.
//  - Only named side streams (`self.comm_stream`, a module-level stream) count as producers and
//    consumers: a stream passed in as an argument may be the caller's current stream. A stream
//    kept on `self` counts whatever its origin (a constructor argument): the class enters
//    regions on it to move work off the caller's stream, and were it the caller's current
//    stream there would be nothing to order.
#pragma once
#include <string>
#include <vector>

#include "model/StreamModel.h"

namespace sl::rules {

// One pair of accesses to object state, in two methods of one class, that nothing orders.
struct StatePair {
  std::string cls;                        // "DataPrefetcher"
  std::string root;                       // "self.next_input"
  const model::Function* writer = nullptr;
  Loc writeAt;                            // the write (or allocation) in `writer`
  model::StreamRef producer;              // the stream it ran on
  const model::Function* reader = nullptr;
  Loc readAt;                             // the use in `reader` (GPU work, or a `return`)
  model::StreamRef consumer;              // the stream the use runs on
  bool useWrites = false;                 // the use writes (overwrites what the other stream may still read)
  Loc regionAt;                           // the consumer's side-stream region, when there is one
};

// SL102's shape: written on a side stream in one method, used on the current stream in another,
// and no method makes the current stream wait for that side stream (or its events).
std::vector<StatePair> unjoinedStateReads(const model::Module& m);
// SL101's shape: written on the current stream in one method, used by GPU work on a side stream
// in another, and no method makes that side stream wait.
std::vector<StatePair> unwaitedStateUses(const model::Module& m);
// SL201's shape: allocated on a side stream in one method (again on each call), used on another
// stream in another method, with no record_stream of it anywhere in the class and no wait of the
// allocating stream for the user's before it allocates again.
std::vector<StatePair> unrecordedStateUses(const model::Module& m);

// "`preload()`" for "DataPrefetcher.preload".
std::string methodName(const model::Function& f);

}  // namespace sl::rules
