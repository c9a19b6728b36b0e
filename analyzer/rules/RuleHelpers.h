// Small queries several rules share over one function's events. Rules stay declarative:
// "who produced this value", "did the host or the stream wait in between".
#pragma once
#include <string>

#include "model/StreamModel.h"

namespace sl::rules {

// Index of the last event before `before` that produced `value` (an allocation, a copy into
// it, GPU work writing it) on a path that reaches `before`, or -1 when it was produced outside
// this function.
long producerOf(const model::Function& f, const std::string& value, size_t before);

// Whether stream `waiter` waits for `producer`'s work somewhere in (from, to), on every path
// to event `to` (f.events.size() = the function's end): a stream/event wait by `waiter`, or a host sync that drains the GPU.
bool orderedBetween(const model::Function& f, size_t from, size_t to, const model::StreamRef& waiter,
                    const model::StreamRef& producer);

// How to make stream `waiter` wait for the work queued so far on `producer`, in the module's
// language: Python `waiter.wait_stream(producer)`; C++ an event recorded on the producer and
// waited on by the waiter (CUDA runtime and LibTorch spellings).
std::string waitHint(model::Lang lang, const model::StreamRef& waiter, const model::StreamRef& producer);

// Two stream references name the same stream (the default stream is the current one unless
// the code switched streams).
bool sameStream(const model::StreamRef& a, const model::StreamRef& b);

// Whether `f` is called by autograd or a module call with its tensor arguments, produced on
// the stream current at the call: an autograd.Function's forward/backward, an nn.Module's
// forward, a registered hook (python/PyFunctionRoles.h names them in Function::hot).
bool handedOverInputs(const model::Function& f);

// The parameter of `f` a value path starts from (`p` for "p.grad"; `params` for a local taken
// from it without new storage, Function::argOf), or "" (also for self/ctx).
std::string parameterRoot(const model::Function& f, const std::string& path);

}  // namespace sl::rules
