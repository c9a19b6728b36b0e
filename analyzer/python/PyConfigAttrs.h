// Configuration attributes of a class (issue 12 recall, litgpt 47806045).
//
// `self.enable_lora`, `self.r`, `self.config` set once in the class's `__init__` and written
// nowhere else in the module: an `if` on them is decided by how the object was built, the same
// on every call, like a branch on the arguments (model::Scope::onArguments). For a helper run
// every step, an arm taken in a configuration runs every step there, and a `return` under
// `if all(self.enable_lora): return x` is no early exit for the configurations that skip it.
// An attribute another method writes (`self.merged = True` in `merge()`, a lazily filled
// cache, `self.step += 1`, `self.buf.append(x)`, `self.cfg.flag = False`) is state, not
// configuration. The test is textual over the module's source, so a write hidden in a comment
// or string only makes it state (fewer findings, never more).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sl::py {

class ConfigAttrs {
 public:
  // The byte range of a `__init__` of class `cls` (collected before lowering).
  void addInit(std::string cls, uint32_t begin, uint32_t end) { inits_.push_back({std::move(cls), begin, end}); }
  // `self.<attr>` is written by `cls.__init__` and by no other code of `src` but `__init__`s.
  bool isConfig(std::string_view src, const std::string& cls, std::string_view attr) const;
  // Every assignment of `self.<attr>` in `src` stores a host value: a container (`set()`,
  // `{}`, `[...]`, `deque()`), a number, a string or a bool, or is annotated with such a type
  // (`self.ids: set[int] = set()`); `None` and updates in place say nothing either way. Its
  // methods are then the container's (`self.ids.add(i)` is no Tensor.add), never GPU work.
  bool hostValued(std::string_view src, std::string_view attr) const;

 private:
  struct Init {
    std::string cls;
    uint32_t begin, end;
  };
  struct Writes {
    std::vector<std::string> initClasses;  // classes whose `__init__` writes it
    bool elsewhere = false;                // written outside every `__init__`
    unsigned hostAssigns = 0, otherAssigns = 0;  // plain assignments, by what they store
  };
  // One pass over the module's `self.<name>` writes, the first time a class asks.
  void index(std::string_view src) const;
  std::vector<Init> inits_;
  mutable bool indexed_ = false;
  mutable std::unordered_map<std::string, Writes> writes_;  // attribute name -> its writes
};

}  // namespace sl::py
