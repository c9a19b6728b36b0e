// Fork without join: a function that makes a side stream wait for the current one (the fork,
// `s.wait_stream(torch.cuda.current_stream())`) and then gives it work has started a protocol
// it must finish before it returns: the current stream waits for `s` (the join,
// `current_stream().wait_stream(s)`, an event recorded on `s` and waited on), or the host
// synchronizes. Without the join the caller's stream runs on while `s` still reads the
// caller's tensors (which the caller may free or overwrite) and writes results the caller may
// read before they exist. The fork is the evidence: code that orders `s` after the current
// stream on the way in owns the order on the way out.
//
// What finishes the protocol elsewhere, and so is no finding (policy, with the reason):
//  - a join of `s` after the fork, also under a branch (one join covers several launches), or
//    in a loop that holds the fork (a pipeline joins the previous step at the top of the next);
//  - an event recorded on `s` after its work that is used: waited on, synchronized, returned or
//    passed on, in the function, or for an event kept on `self` anywhere in the module (the
//    event is the hand-off; one that nothing ever waits on hands nothing over);
//  - a host sync of the device, of `s` or of an event after the work on every path to the
//    return (one under `if serial:` orders that path only), or a call whose callee synchronizes
//    the device;
//  - a CUDA graph capture in the function: captured work runs when the graph is replayed;
//  - another function of the module that joins `s` without forking it (a `wait()`/`finish()`
//    method of the protocol), or, for object state (`self.s`), any other method of the class
//    that joins it, records an event on it or synchronizes it (the class's methods run in
//    sequences the caller chooses: torchft's LocalSGD records on its stream in one method and
//    synchronizes that event in `wait()`);
//  - `s` handed back to the caller (returned): the caller joins it.
#pragma once
#include <vector>

#include "model/StreamModel.h"

namespace sl::rules {

struct UnjoinedFork {
  const model::Function* fn = nullptr;
  const model::Event* fork = nullptr;      // `s.wait_stream(current)`
  const model::Event* lastWork = nullptr;  // the last GPU work given to `s` after the fork
  Loc exitAt;                              // where the function hands control back
  model::StreamRef stream;                 // `s`
  model::StreamRef from;                   // the stream `s` was forked from (the one to join it)
  // `s` is itself an argument forked from the current stream: the caller may join it.
  bool streamIsParameter = false;
};

// `f` forks `s` (makes it wait for another stream), and joins a stream it forked back after its
// fork (`s` itself on another path, or another stream): the function keeps the streams' protocol
// itself, handed-in streams included.
bool keepsForkProtocol(const model::Function& f, const model::StreamRef& s);

// Another function of the module finishes the protocol on `s` for `f`: one that joins `s`
// without forking it, or for object state any other method of the class that joins it, records
// an event on it or synchronizes it (see above).
bool finishedElsewhere(const model::Module& m, const model::Function& f, const model::StreamRef& s);

std::vector<UnjoinedFork> unjoinedForks(const model::Module& m, const model::ModuleSummary& summary);

}  // namespace sl::rules
