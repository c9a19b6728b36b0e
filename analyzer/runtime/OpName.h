// A GPU op's name, interned: every op of one kernel shares one string. A name of its own per op
// (kernel names run to 100+ bytes) was a third of what the report held per GPU op. The pool
// lives as long as the process (names are few: one per distinct kernel) and is shared by every
// timeline, so ops stay valid whichever timeline is copied or destroyed.
#pragma once
#include <mutex>
#include <string>
#include <unordered_set>

namespace sl::runtime {

class OpName {
 public:
  OpName() : p_(intern({})) {}
  OpName(const std::string& s) : p_(intern(s)) {}  // NOLINT: implicit, as the string it replaced
  OpName(const char* s) : p_(intern(s)) {}         // NOLINT
  operator const std::string&() const { return *p_; }  // NOLINT
  const std::string& str() const { return *p_; }
  bool operator==(const OpName& o) const { return p_ == o.p_; }
  bool operator==(const std::string& s) const { return *p_ == s; }
  bool operator==(const char* s) const { return *p_ == s; }

 private:
  static const std::string* intern(const std::string& s) {
    static std::mutex lock;
    static auto* pool = new std::unordered_set<std::string>;  // never freed: ops may outlive main's locals
    std::lock_guard<std::mutex> g(lock);
    return &*pool->insert(s).first;
  }
  const std::string* p_;
};

}  // namespace sl::runtime
