// Events recorded that nothing consumes (C/C++). `cudaEventRecord(ev, a)` is half of an
// ordering: it marks a point in stream `a` for a `cudaStreamWaitEvent(b, ev)`, a host
// `cudaEventSynchronize(ev)`, a query or a timing to consume. A record whose event nothing in
// the file consumes orders nothing; the wait it was recorded for is missing.
//
// Policy, with the reason:
//  - only events the file itself creates (cudaEventCreate*, anywhere in the file) or a project
//    header it includes creates (a struct's constructor; the lowering keeps those creations,
//    and the header's uses, on `<module>`): an event made elsewhere (a parameter, a handle
//    from another library) may be consumed there;
//  - events are matched by the last member of their access path (`ctx->done`, `this->done_` and
//    `done` are one `done`; `p->pool[][].h2d` is `h2d[]`): the object reached differs between
//    functions, the member does not, and a same-named consumer anywhere counts as a use;
//  - a use is anything model::Function::eventUses lists (a wait, a sync, a query, a helper
//    handed the event, a copy into another variable), a returned value, or an escape.
// The Python frontend does not list event uses (its records are judged by SL101's
// region analysis, which sees the waits of the class's methods), so this is C/C++ only.
#pragma once
#include <vector>

#include "model/StreamModel.h"

namespace sl::rules {

struct UnusedRecord {
  const model::Function* fn = nullptr;
  const model::Event* record = nullptr;
  // The record follows work on, or a wait by, its own stream in `fn`: it marks that work as
  // done for a consumer that never waits (SL102). Otherwise it marks where another stream
  // should start, and that stream's work is not ordered after it (SL101).
  bool afterWork = false;
  const model::Event* work = nullptr;  // the last such work or wait, when afterWork
};

std::vector<UnusedRecord> unusedRecords(const model::Module& m);

}  // namespace sl::rules
