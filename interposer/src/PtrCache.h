// Small per-thread caches keyed by a pointer (code objects, kernel handles, launch sites):
// set-associative, indexed by a multiplicative hash of the key, entries of a full set replaced in
// turn. They were direct-mapped on address bits, and two keys sharing a slot evicted each other
// on every use: in a recorded torch training step, 2 of the 9 native launch sites of the autograd
// thread shared one, so 28 % of its launches took a full backtrace instead of a cache hit, and
// Python code objects were defined again and again (CodeDef records by the thousand).
// A set holds 4: with N keys in use, sets overflow once N nears a quarter of the entries
// (Poisson), and every call whose stack carries two keys of an overfull set misses. 400 code
// objects on stacks at CUDA calls made 120,490 CodeDefs in 18,000 calls with 512 entries (2 µs a
// call more); the code cache now has 2048 (bench/sanitize/README.md, issue 34).
#pragma once
#include <cstdint>
#include <cstring>

namespace sl::ip {

inline constexpr uint64_t kGoldenRatio64 = 0x9E3779B97F4A7C15ull;  // Fibonacci hashing's multiplier

// One key from a pointer and a second word (a caller, a stack depth).
inline const void* mixKey(const void* p, uintptr_t w) {
  return reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(p) ^ (w * kGoldenRatio64));
}

template <class Entry, unsigned kSets, unsigned kWays = 4>
struct PtrCache {
  static_assert((kSets & (kSets - 1)) == 0, "a power of two");
  static constexpr unsigned kEntries = kSets * kWays;
  Entry entries[kEntries];
  uint8_t victim[kSets] = {};  // the entry of each set replaced next

  Entry* find(const void* key) {
    Entry* set = entries + setOf(key) * kWays;
    for (unsigned i = 0; i < kWays; ++i)
      if (set[i].key == key) return &set[i];
    return nullptr;
  }
  // The entry `key` gets (emptied, its key set); the caller fills the rest.
  Entry* claim(const void* key) {
    unsigned s = setOf(key);
    Entry* e = entries + s * kWays + victim[s];
    victim[s] = uint8_t((victim[s] + 1) % kWays);
    *e = Entry{};
    e->key = key;
    return e;
  }
  void clear() {
    for (auto& e : entries) e = Entry{};
    memset(victim, 0, sizeof victim);
  }

 private:
  static unsigned setOf(const void* key) {
    return unsigned((reinterpret_cast<uintptr_t>(key) * kGoldenRatio64) >> 32) & (kSets - 1);
  }
};

}  // namespace sl::ip
