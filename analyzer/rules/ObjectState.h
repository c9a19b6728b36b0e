// Object state shared by the methods of a class: what one method writes and another reads
// through the same `self.` attribute (`self.store.get(i)` in both). Lets a rule see the
// producer of a callee's inputs when both sit in methods of one class.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/StreamModel.h"

namespace sl::rules {

// The `self.` attribute a value path reaches: "self.store" for "self.store.x[]", or for a
// local bound from it (model::Function::stateOf); "" when the path is not object state.
std::string stateRoot(const model::Function& f, const std::string& path);

// The class part of "Class.method" ("" for a free function).
std::string classOf(const std::string& name);

// Event `e` of `g` writes object state `root`: GPU work writing it, or an event that makes or
// drops the value stored there (an allocation, a copy into it, a free).
bool writesState(const model::Function& g, const model::Event& e, const std::string& root);

// Object state a call to `callee` reads in GPU work before any wait of its own, through the
// callee and the methods of its class it calls (a few levels): attribute -> the reading event.
struct StateRead {
  std::string root;
  const model::Event* at = nullptr;
};
std::vector<StateRead> stateReadsOf(const model::Module& m, const std::string& callee);
// Object state a call to `callee` writes in GPU work on a stream that is not a side stream, through
// the callee and the methods of its class it calls (a few levels).
std::vector<StateRead> stateWritesOf(const model::Module& m, const std::string& callee);

// In side-stream region `region` of `f`: the first call (on the region's stream) to a method of
// the class that reads object state which `f` wrote on a non-side stream before it (itself, or by
// calling a method of its class that writes it), on a path that reaches the call. `skip(call)` drops calls the rule already judged (a wait before it).
struct StateWrite {
  size_t call = 0, producer = 0;  // event indices in f
  std::string root;               // the `self.` attribute
  const model::Event* read = nullptr;  // the callee's reading event
};
std::optional<StateWrite> stateWriteBeforeCall(const model::Module& m, const model::Function& f, int region,
                                               const std::function<bool(size_t call)>& skip);

}  // namespace sl::rules
