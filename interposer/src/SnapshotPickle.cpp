#include "SnapshotPickle.h"

#include <cstdio>
#include <cstring>

namespace sl::ip {

namespace {

// A value on the pickle machine's stack: scalars inline, containers by index.
struct Item {
  enum Kind : uint8_t { Mark, Int, Str, Other, Dict, List } kind = Other;
  uint64_t v = 0;  // Int: the value (low 64 bits); Str: string index; Dict/List: container index
};

uint64_t actionCode(const std::string& s) {
  if (s == "alloc") return 1;
  if (s == "free_requested") return 2;
  if (s == "free_completed") return 3;
  if (s == "segment_alloc") return 4;
  if (s == "segment_free") return 5;
  return 0;
}

class Machine {
 public:
  Machine(const unsigned char* p, size_t n) : p_(p), end_(p + n) {}
  bool run(std::vector<SnapshotEntry>& out, std::string& error);

 private:
  bool need(size_t k) { return size_t(end_ - p_) >= k; }
  uint64_t le(int k) {  // k little-endian bytes
    uint64_t v = 0;
    for (int i = 0; i < k && i < 8; ++i) v |= uint64_t(p_[i]) << (8 * i);
    p_ += k;
    return v;
  }
  bool fail(std::string& error, const char* what, int op = -1) {
    char buf[96];
    if (op >= 0) snprintf(buf, sizeof buf, "%s (opcode 0x%02x at byte %zu)", what, op, size_t(p_ - begin()) - 1);
    else snprintf(buf, sizeof buf, "%s", what);
    error = buf;
    return false;
  }
  const unsigned char* begin() const { return end_ - total_; }
  size_t markIndex() const {  // the topmost mark, or npos
    for (size_t i = stack_.size(); i-- > 0;)
      if (stack_[i].kind == Item::Mark) return i;
    return size_t(-1);
  }
  void setItems(Item dict, size_t from);  // pairs stack_[from..] into `dict`
  void appendItems(Item list, size_t from);
  bool string(size_t len, bool keep);

  const unsigned char* p_;
  const unsigned char* end_;
  size_t total_ = size_t(end_ - p_);
  std::vector<Item> stack_, memo_;
  std::vector<std::string> strings_;
  std::vector<SnapshotEntry> dicts_;             // one per dict (fields of trace entries)
  std::vector<uint8_t> hasAction_;               // per dict
  std::vector<std::vector<Item>> lists_;         // children of lists that hold dicts or lists
  uint64_t deviceTraces_ = ~0ull;                // the list under "device_traces"
};

bool Machine::string(size_t len, bool keep) {
  if (!need(len)) return false;
  Item it{Item::Other, 0};
  if (keep) {
    it = {Item::Str, strings_.size()};
    strings_.emplace_back(reinterpret_cast<const char*>(p_), len);
  }
  p_ += len;
  stack_.push_back(it);
  return true;
}

void Machine::setItems(Item dict, size_t from) {
  for (size_t i = from; i + 1 < stack_.size(); i += 2) {
    const Item& k = stack_[i];
    const Item& v = stack_[i + 1];
    if (k.kind != Item::Str || dict.kind != Item::Dict) continue;
    const std::string& key = strings_[k.v];
    SnapshotEntry& e = dicts_[dict.v];
    if (key == "action" && v.kind == Item::Str) {
      e.action = actionCode(strings_[v.v]);
      hasAction_[dict.v] = 1;
    } else if (v.kind == Item::Int) {
      if (key == "addr") e.addr = v.v;
      else if (key == "size") e.size = v.v;
      else if (key == "stream") e.stream = v.v;
      else if (key == "time_us") e.timeUs = v.v;
    } else if (key == "device_traces" && v.kind == Item::List) {
      deviceTraces_ = v.v;
    }
  }
  stack_.resize(from);
}

void Machine::appendItems(Item list, size_t from) {
  if (list.kind == Item::List)
    for (size_t i = from; i < stack_.size(); ++i)
      if (stack_[i].kind == Item::Dict || stack_[i].kind == Item::List) lists_[list.v].push_back(stack_[i]);
  stack_.resize(from);
}

bool Machine::run(std::vector<SnapshotEntry>& out, std::string& error) {
  const char* truncated = "truncated pickle";
  while (p_ < end_) {
    int op = *p_++;
    switch (op) {
      case 0x80: if (!need(1)) return fail(error, truncated); p_ += 1; break;   // PROTO
      case 0x95: if (!need(8)) return fail(error, truncated); p_ += 8; break;   // FRAME
      case '.': {                                                               // STOP
        if (deviceTraces_ == ~0ull) return fail(error, "no device_traces in the snapshot");
        uint64_t device = 0;
        for (const Item& d : lists_[deviceTraces_]) {
          if (d.kind == Item::List)
            for (const Item& e : lists_[d.v])
              if (e.kind == Item::Dict && hasAction_[e.v]) {
                out.push_back(dicts_[e.v]);
                out.back().device = device;
              }
          ++device;
        }
        return true;
      }
      case '(': stack_.push_back({Item::Mark, 0}); break;                         // MARK
      case '}':                                                                 // EMPTY_DICT
        stack_.push_back({Item::Dict, dicts_.size()});
        dicts_.emplace_back();
        hasAction_.push_back(0);
        break;
      case ']':                                                                 // EMPTY_LIST
        stack_.push_back({Item::List, lists_.size()});
        lists_.emplace_back();
        break;
      case ')': case 'N': case 0x88: case 0x89:  // EMPTY_TUPLE, NONE, NEWTRUE, NEWFALSE
        stack_.push_back({Item::Other, 0});
        break;
      case 'J': if (!need(4)) return fail(error, truncated);                   // BININT
        stack_.push_back({Item::Int, uint64_t(int64_t(int32_t(uint32_t(le(4)))))});
        break;
      case 'K': if (!need(1)) return fail(error, truncated); stack_.push_back({Item::Int, le(1)}); break;
      case 'M': if (!need(2)) return fail(error, truncated); stack_.push_back({Item::Int, le(2)}); break;
      case 0x8a: case 0x8b: {                                                   // LONG1, LONG4
        int w = op == 0x8a ? 1 : 4;
        if (!need(w)) return fail(error, truncated);
        uint64_t k = le(w);
        if (!need(k)) return fail(error, truncated);
        uint64_t v = le(int(k > 8 ? 8 : k));
        if (k > 8) p_ += k - 8;
        if (k && k < 8 && (v >> (8 * k - 1)) & 1) v |= ~0ull << (8 * k);  // sign-extend
        stack_.push_back({Item::Int, v});
        break;
      }
      case 'G': if (!need(8)) return fail(error, truncated); p_ += 8;            // BINFLOAT
        stack_.push_back({Item::Other, 0});
        break;
      case 'X': case 0x8d: case 0x8c: case 'T': case 'U': case 'B': case 'C': case 0x8e: {
        // BINUNICODE, BINUNICODE8, SHORT_BINUNICODE, BINSTRING, SHORT_BINSTRING, BINBYTES,
        // SHORT_BINBYTES, BINBYTES8: only text is kept (keys and action names).
        int w = (op == 0x8c || op == 'U' || op == 'C') ? 1 : (op == 0x8d || op == 0x8e) ? 8 : 4;
        if (!need(w)) return fail(error, truncated);
        uint64_t len = le(w);
        bool text = op == 'X' || op == 0x8d || op == 0x8c || op == 'T' || op == 'U';
        if (len > size_t(end_ - p_) || !string(size_t(len), text && len < 64)) return fail(error, truncated);
        break;
      }
      case 'q': case 'r': case 0x94: {                                          // BINPUT, LONG_BINPUT, MEMOIZE
        uint64_t idx = memo_.size();
        if (op != 0x94) {
          int w = op == 'q' ? 1 : 4;
          if (!need(w)) return fail(error, truncated);
          idx = le(w);
        }
        if (stack_.empty()) return fail(error, "memo store with an empty stack", op);
        if (idx > (1u << 28)) return fail(error, "memo index out of range", op);
        if (memo_.size() <= idx) memo_.resize(idx + 1);
        memo_[idx] = stack_.back();
        break;
      }
      case 'h': case 'j': {                                                     // BINGET, LONG_BINGET
        int w = op == 'h' ? 1 : 4;
        if (!need(w)) return fail(error, truncated);
        uint64_t idx = le(w);
        if (idx >= memo_.size()) return fail(error, "memo index out of range", op);
        stack_.push_back(memo_[idx]);
        break;
      }
      case 't': {                                                               // TUPLE
        size_t m = markIndex();
        if (m == size_t(-1)) return fail(error, "tuple without a mark", op);
        stack_.resize(m);
        stack_.push_back({Item::Other, 0});
        break;
      }
      case 0x85: case 0x86: case 0x87: {                                        // TUPLE1..3
        size_t k = size_t(op - 0x84);
        if (stack_.size() < k) return fail(error, "stack underflow", op);
        stack_.resize(stack_.size() - k);
        stack_.push_back({Item::Other, 0});
        break;
      }
      case 'u': case 'e': {                                                     // SETITEMS, APPENDS
        size_t m = markIndex();
        if (m == size_t(-1) || m == 0) return fail(error, "items without a mark", op);
        Item target = stack_[m - 1];
        stack_.erase(stack_.begin() + long(m));
        if (op == 'u') setItems(target, m);
        else appendItems(target, m);
        break;
      }
      case 's': case 'a': {                                                     // SETITEM, APPEND
        size_t k = op == 's' ? 2 : 1;
        if (stack_.size() < k + 1) return fail(error, "stack underflow", op);
        size_t from = stack_.size() - k;
        if (op == 's') setItems(stack_[from - 1], from);
        else appendItems(stack_[from - 1], from);
        break;
      }
      case 'd': case 'l': {                                                     // DICT, LIST from a mark
        size_t m = markIndex();
        if (m == size_t(-1)) return fail(error, "container without a mark", op);
        Item c = op == 'd' ? Item{Item::Dict, dicts_.size()} : Item{Item::List, lists_.size()};
        if (op == 'd') dicts_.emplace_back(), hasAction_.push_back(0);
        else lists_.emplace_back();
        stack_.erase(stack_.begin() + long(m));
        stack_.insert(stack_.begin() + long(m), c);
        if (op == 'd') setItems(c, m + 1);
        else appendItems(c, m + 1);
        break;
      }
      case '0': if (stack_.empty()) return fail(error, "stack underflow", op); stack_.pop_back(); break;  // POP
      default:
        return fail(error, "an object the allocator's snapshot does not hold", op);
    }
  }
  return fail(error, truncated);
}

}  // namespace

bool readSnapshotTrace(const char* data, size_t n, std::vector<SnapshotEntry>& out, std::string& error) {
  Machine m(reinterpret_cast<const unsigned char*>(data), n);
  return m.run(out, error);
}

}  // namespace sl::ip
