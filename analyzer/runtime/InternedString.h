// A string held once per process: every record that names it shares one copy. Kernel names
// (100+ bytes, one per GPU op), collective kinds and source paths (one per NCCL call) repeat
// across millions of records; a copy per record grew with the log. An InternedString is a
// pointer, so records that hold one stay plain bytes and can move to a temporary file
// (SpilledVector.h). The pool lives as long as the process (the strings are few: one per
// distinct name or path) and is shared by every timeline and rank view, so a record stays
// valid whichever of them is copied or destroyed.
#pragma once
#include <mutex>
#include <ostream>
#include <string>
#include <unordered_set>

namespace sl::runtime {

class InternedString {
 public:
  InternedString() : p_(emptyString()) {}
  InternedString(const std::string& s) : p_(intern(s)) {}  // NOLINT: implicit, as the string it replaced
  InternedString(const char* s) : p_(intern(s)) {}         // NOLINT
  operator const std::string&() const { return *p_; }      // NOLINT
  const std::string& str() const { return *p_; }
  const char* c_str() const { return p_->c_str(); }
  bool empty() const { return p_->empty(); }
  size_t size() const { return p_->size(); }
  bool operator==(const InternedString& o) const { return p_ == o.p_; }
  bool operator!=(const InternedString& o) const { return p_ != o.p_; }
  bool operator==(const std::string& s) const { return *p_ == s; }
  bool operator==(const char* s) const { return *p_ == s; }
  // By content (maps and sorted output order as the strings did).
  bool operator<(const InternedString& o) const { return p_ != o.p_ && *p_ < *o.p_; }

 private:
  static std::unordered_set<std::string>& pool() {
    static auto* p = new std::unordered_set<std::string>;  // never freed: records may outlive main's locals
    return *p;
  }
  static std::mutex& lock() {
    static auto* m = new std::mutex;
    return *m;
  }
  static const std::string* intern(const std::string& s) {
    std::lock_guard<std::mutex> g(lock());
    return &*pool().insert(s).first;
  }
  static const std::string* emptyString() {
    static const std::string* e = intern({});
    return e;
  }
  const std::string* p_;
};

inline std::ostream& operator<<(std::ostream& os, const InternedString& s) { return os << s.str(); }

}  // namespace sl::runtime
