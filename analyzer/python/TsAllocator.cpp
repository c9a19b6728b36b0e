// tree-sitter allocates and frees a small block for nearly every syntax node and parse-stack
// entry; glibc's malloc/free were ~9 % of a check (callgrind, Megatron-LM/DeepSpeed files).
// Per-thread free lists per 16-byte size class make the common case a few instructions and
// need no locks: a block freed on another thread simply joins that thread's list. Blocks keep
// their size class (or, above the classes, their size) in a 16-byte header, which also keeps
// malloc's 16-byte alignment.
#include "python/TsAllocator.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

// Exported by libtree-sitter (0.20.7 declares it in its private alloc.h only).
extern "C" void ts_set_allocator(void* (*new_malloc)(size_t), void* (*new_calloc)(size_t, size_t),
                                 void* (*new_realloc)(void*, size_t), void (*new_free)(void*));

namespace sl::py {
namespace {

constexpr size_t kHeader = 16;
constexpr size_t kStep = 16;
constexpr size_t kClasses = 16;        // payloads of 16 .. 256 bytes
constexpr uint32_t kMaxCached = 1u << 15;  // per class and thread: bounds what a thread keeps
constexpr size_t kLarge = SIZE_MAX;

struct Header {
  size_t cls;   // size class, or kLarge
  size_t size;  // kLarge: the payload size
};
static_assert(sizeof(Header) == kHeader);

struct FreeLists {
  void* head[kClasses] = {};
  uint32_t count[kClasses] = {};
  ~FreeLists() {
    dead() = true;  // frees during later thread-exit destructors go straight to libc
    for (size_t c = 0; c < kClasses; ++c)
      while (void* b = head[c]) {
        head[c] = *static_cast<void**>(b);
        std::free(b);
      }
  }
  static bool& dead() {
    thread_local bool d = false;  // trivially destructible: readable until the thread ends
    return d;
  }
};
thread_local FreeLists lists;

Header* headerOf(void* p) { return reinterpret_cast<Header*>(static_cast<char*>(p) - kHeader); }

void* allocate(size_t size) {
  size_t cls = size ? (size - 1) / kStep : 0;
  if (cls < kClasses && !FreeLists::dead()) {
    if (void* b = lists.head[cls]) {
      lists.head[cls] = *static_cast<void**>(b);  // the link overwrote the header's class
      --lists.count[cls];
      static_cast<Header*>(b)->cls = cls;
      return static_cast<char*>(b) + kHeader;
    }
    auto* h = static_cast<Header*>(std::malloc(kHeader + (cls + 1) * kStep));
    if (!h) std::abort();  // tree-sitter's own allocator aborts too
    h->cls = cls;
    return reinterpret_cast<char*>(h) + kHeader;
  }
  auto* h = static_cast<Header*>(std::malloc(kHeader + size));
  if (!h) std::abort();
  h->cls = kLarge, h->size = size;
  return reinterpret_cast<char*>(h) + kHeader;
}

void release(void* p) {
  if (!p) return;
  Header* h = headerOf(p);
  size_t cls = h->cls;
  if (cls < kClasses && !FreeLists::dead() && lists.count[cls] < kMaxCached) {
    *reinterpret_cast<void**>(h) = lists.head[cls];
    lists.head[cls] = h;
    ++lists.count[cls];
    return;
  }
  std::free(h);
}

size_t capacity(void* p) {
  Header* h = headerOf(p);
  return h->cls == kLarge ? h->size : (h->cls + 1) * kStep;
}

void* reallocate(void* p, size_t size) {
  if (!p) return allocate(size);
  size_t cap = capacity(p);
  if (size <= cap && headerOf(p)->cls != kLarge) return p;
  if (headerOf(p)->cls == kLarge && size > kClasses * kStep) {
    auto* h = static_cast<Header*>(std::realloc(headerOf(p), kHeader + size));
    if (!h) std::abort();
    h->size = size;
    return reinterpret_cast<char*>(h) + kHeader;
  }
  void* q = allocate(size);
  std::memcpy(q, p, cap < size ? cap : size);
  release(p);
  return q;
}

void* allocateZeroed(size_t n, size_t size) {
  void* p = allocate(n * size);
  std::memset(p, 0, n * size);
  return p;
}

}  // namespace

void installTreeSitterAllocator() {
  static std::once_flag once;
  std::call_once(once, [] { ts_set_allocator(allocate, allocateZeroed, reallocate, release); });
}

}  // namespace sl::py
