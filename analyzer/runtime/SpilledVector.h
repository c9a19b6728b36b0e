// A vector of plain records that moves to a temporary file once it would hold more than a set
// number of bytes (spillThresholdBytes, 4 MiB), and is then read and written through a small cache of
// pages: the timeline's calls and GPU ops (Timeline.h) of a long log, which grew with the log
// (88 bytes a call, 56 an op: 1.2 GB on a 10 M-launch log). In memory it behaves as the
// std::vector it replaced. Elements are read by value (operator[], iteration) and written with
// set() / update() / forEachUpdate(): a reference into a page could outlive the page in the cache.
// The file is unlinked as soon as it is made (nothing stays behind after a crash) and lives in
// $TMPDIR (else /tmp); a write that fails (disk full) throws SpillError naming the directory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace sl::runtime {

struct SpillError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bytes a SpilledVector holds in memory before it moves to a file (default 4 MiB; the
// environment variable SL_SPILL_AFTER_MB overrides it, 0 = every non-empty vector spills).
size_t spillThresholdBytes();

// The file behind a spilled vector: an unlinked temporary file, read and written by offset.
class SpillFile {
 public:
  SpillFile();  // throws SpillError
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  void read(uint64_t offset, void* to, size_t bytes) const;  // throws SpillError
  void write(uint64_t offset, const void* from, size_t bytes);  // throws SpillError

 private:
  int fd_ = -1;
  std::string dir_;
};

template <class T>
class SpilledVector {
  static_assert(std::is_trivially_copyable_v<T>, "spilled records are copied as bytes");

 public:
  SpilledVector() = default;
  SpilledVector(SpilledVector&&) noexcept = default;
  SpilledVector& operator=(SpilledVector&&) noexcept = default;
  // A copy is made element by element (into a file of its own when it is as long).
  SpilledVector(const SpilledVector& o) {
    reserve(o.size_);
    for (const T& v : o) push_back(v);
  }
  SpilledVector& operator=(const SpilledVector& o) {
    if (this != &o) {
      SpilledVector c(o);
      *this = std::move(c);
    }
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool spilled() const { return file_ != nullptr; }
  T operator[](size_t i) const { return file_ ? slot(i / kPageElems, false).page[i % kPageElems] : mem_[i]; }
  T at(size_t i) const {
    if (i >= size_) throw std::out_of_range("SpilledVector::at");
    return (*this)[i];
  }
  T front() const { return (*this)[0]; }
  T back() const { return (*this)[size_ - 1]; }

  // Reserving more than the threshold moves to the file at once: the vector is never first built
  // in memory only to be copied out.
  void reserve(size_t n) {
    if (!file_ && n * sizeof(T) > spillThresholdBytes() && n) spill();
    if (!file_) mem_.reserve(n);
  }
  void push_back(const T& v) {
    if (!file_ && (size_ + 1) * sizeof(T) > spillThresholdBytes()) spill();
    if (!file_) {
      // Grown by doubling up to the threshold, not past it: the vector's last doubling would
      // otherwise hold up to twice the threshold in memory until it spills.
      if (mem_.size() == mem_.capacity())
        mem_.reserve(std::min(std::max<size_t>(2 * mem_.capacity(), 16), std::max<size_t>(1, spillThresholdBytes() / sizeof(T))));
      mem_.push_back(v);
      size_++;
      return;
    }
    Slot& s = slot(size_ / kPageElems, true);
    s.page[size_ % kPageElems] = v;
    s.dirty = true;
    size_++;
  }
  void set(size_t i, const T& v) {
    if (!file_) { mem_[i] = v; return; }
    Slot& s = slot(i / kPageElems, false);
    s.page[i % kPageElems] = v;
    s.dirty = true;
  }
  template <class F>
  void update(size_t i, F f) {
    if (!file_) { f(mem_[i]); return; }
    Slot& s = slot(i / kPageElems, false);
    f(s.page[i % kPageElems]);
    s.dirty = true;
  }
  // f(T&) on every element, in order (a page at a time once spilled).
  template <class F>
  void forEachUpdate(F f) {
    for (size_t i = 0; i < size_; ++i) update(i, f);
  }
  void resize(size_t n) {  // tests and small timelines: grows with default elements
    while (size_ < n) push_back(T{});
    if (n < size_) {
      if (!file_) mem_.resize(n);
      size_ = n;
    }
  }
  void clear() {
    *this = SpilledVector();
  }
  // Sorts stably by key(element) (a uint64_t). In memory: an order of indices, then a permutation
  // in place. Spilled: runs that fit the threshold are sorted in memory and written to a new
  // file, then merged through a heap, at most kMergeFanIn runs at a time (one small buffer per
  // run), in as many passes as that takes: memory bounded by the threshold whatever the length
  // (one buffer per run of a 10 M-call log was ~7 MB, and grew with the log). A vector already
  // in order is only read once. `fanIn`: runs merged at once (tests: 2 makes many passes).
  template <class Key>
  void sortStably(Key key, size_t fanIn = kMergeFanIn) {
    fanIn = std::max<size_t>(2, fanIn);
    bool sorted = true;
    uint64_t last = 0;
    for (const T& e : *this) {
      uint64_t k = key(e);
      if (k < last) { sorted = false; break; }
      last = k;
    }
    if (sorted) return;
    if (!file_) {
      std::vector<uint32_t> order(size_);
      for (size_t i = 0; i < order.size(); ++i) order[i] = uint32_t(i);
      std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(mem_[a]) < key(mem_[b]); });
      permuteInMemory(order);
      return;
    }
    size_t run = std::max<size_t>(kPageElems, spillThresholdBytes() / sizeof(T) / 2);
    SpilledVector runs;
    runs.spill();
    {
      std::vector<T> buf;
      for (size_t b = 0; b < size_; b += run) {
        buf.clear();
        for (size_t i = b; i < std::min(size_, b + run); ++i) buf.push_back((*this)[i]);
        std::stable_sort(buf.begin(), buf.end(), [&](const T& x, const T& y) { return key(x) < key(y); });
        for (const T& v : buf) runs.push_back(v);
      }
    }
    // Each pass merges groups of fanIn neighbouring runs into one: runs of `run` elements become
    // runs of run * fanIn, until one is left.
    while (run < size_) {
      runs.flush();
      SpilledVector out;
      out.spill();
      for (size_t g = 0; g < size_; g += run * fanIn)
        mergeRuns(runs, g, std::min(size_, g + run * fanIn), run, key, out);
      runs = std::move(out);
      run = run > size_ / fanIn ? size_ : run * fanIn;
    }
    *this = std::move(runs);
  }
  // Writes the cached pages that changed (before the file is read directly).
  void flush() {
    if (!file_) return;
    for (size_t k = 0; k < kSlots; ++k)
      if (Slot& s = slots_[k]; s.dirty) {
        file_->write(uint64_t(s.index) * kPageElems * sizeof(T), s.page.get(), pageBytes(s.index));
        s.dirty = false;
      }
  }

  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = T;
    const_iterator() = default;
    const_iterator(const SpilledVector* v, size_t i) : v_(v), i_(i) {}
    T operator*() const { return (*v_)[i_]; }
    T operator[](difference_type n) const { return (*v_)[size_t(difference_type(i_) + n)]; }
    const_iterator& operator++() { ++i_; return *this; }
    const_iterator operator++(int) { auto c = *this; ++i_; return c; }
    const_iterator& operator--() { --i_; return *this; }
    const_iterator& operator+=(difference_type n) { i_ = size_t(difference_type(i_) + n); return *this; }
    const_iterator& operator-=(difference_type n) { i_ = size_t(difference_type(i_) - n); return *this; }
    const_iterator operator+(difference_type n) const { auto c = *this; return c += n; }
    const_iterator operator-(difference_type n) const { auto c = *this; return c -= n; }
    difference_type operator-(const_iterator o) const { return difference_type(i_) - difference_type(o.i_); }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }
    bool operator<(const const_iterator& o) const { return i_ < o.i_; }

   private:
    const SpilledVector* v_ = nullptr;
    size_t i_ = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  // About 64 KiB a page, 16 pages: 1 MiB of cache per spilled vector, whatever its length. Pages
  // are direct-mapped (page % kSlots): the analyses read the timeline in order, or two places
  // of it at a time.
  static constexpr size_t kPageElems = sizeof(T) >= 65536 ? 1 : 65536 / sizeof(T);
  static constexpr size_t kSlots = 16;
  static constexpr size_t kMergeFanIn = 256;  // runs merged at once: 256 buffers of 4 KiB
  struct Slot {
    std::unique_ptr<T[]> page;
    size_t index = SIZE_MAX;
    bool dirty = false;
  };

  void spill() {
    file_ = std::make_unique<SpillFile>();
    slots_.reset(new Slot[kSlots]);
    std::vector<T> mem;
    mem.swap(mem_);
    size_t n = size_;
    size_ = 0;
    for (size_t i = 0; i < n; ++i) push_back(mem[i]);
  }
  // `append`: the page may lie past the file's end (then it starts empty, not read).
  Slot& slot(size_t page, bool append) const {
    Slot& s = slots_[page % kSlots];
    if (s.index == page) return s;
    if (!s.page) s.page.reset(new T[kPageElems]);
    if (s.dirty) file_->write(uint64_t(s.index) * kPageElems * sizeof(T), s.page.get(), pageBytes(s.index));
    s.dirty = false;
    s.index = page;
    size_t inFile = pageBytes(page);
    bool beyond = append && page * kPageElems >= size_;  // a new page: nothing to read
    if (!beyond && inFile) file_->read(uint64_t(page) * kPageElems * sizeof(T), s.page.get(), inFile);
    return s;
  }
  size_t pageBytes(size_t page) const {
    size_t first = page * kPageElems;
    size_t n = size_ > first ? std::min(kPageElems, size_ - first) : 0;
    return n * sizeof(T);
  }
  void permuteInMemory(const std::vector<uint32_t>& order) {
    std::vector<bool> done(mem_.size());
    for (size_t i = 0; i < mem_.size(); ++i) {
      if (done[i]) continue;
      T first = mem_[i];
      size_t j = i;
      while (true) {
        done[j] = true;
        size_t k = order[j];
        if (k == i) { mem_[j] = first; break; }
        mem_[j] = mem_[k];
        j = k;
      }
    }
  }

  // Appends to `out` the merge of src's sorted runs of `run` elements in [from, to) (at most
  // a fan-in of them); of equal keys the earlier run's element first (stable).
  template <class Key>
  static void mergeRuns(const SpilledVector& src, size_t from, size_t to, size_t run, Key& key, SpilledVector& out) {
    struct Cursor { size_t next = 0, end = 0, bufAt = 0; std::vector<T> buf; };
    std::vector<Cursor> cur;
    for (size_t b = from; b < to; b += run) {
      cur.emplace_back();
      cur.back().next = b;
      cur.back().end = std::min(to, b + run);
    }
    const size_t chunk = std::max<size_t>(1, 4096 / sizeof(T));
    auto refill = [&](Cursor& c) {
      size_t n = std::min(chunk, c.end - c.next);
      c.buf.resize(n);
      c.bufAt = 0;
      if (n) src.file_->read(uint64_t(c.next) * sizeof(T), c.buf.data(), n * sizeof(T));
      c.next += n;
    };
    std::vector<std::pair<uint64_t, uint32_t>> heap;  // (key, run), smallest on top
    auto after = [](const auto& x, const auto& y) { return x > y; };
    for (uint32_t r = 0; r < cur.size(); ++r) {
      refill(cur[r]);
      heap.emplace_back(key(cur[r].buf[0]), r);
    }
    std::make_heap(heap.begin(), heap.end(), after);
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), after);
      uint32_t r = heap.back().second;
      heap.pop_back();
      Cursor& c = cur[r];
      out.push_back(c.buf[c.bufAt++]);
      if (c.bufAt == c.buf.size()) refill(c);
      if (c.bufAt < c.buf.size()) {
        heap.emplace_back(key(c.buf[c.bufAt]), r);
        std::push_heap(heap.begin(), heap.end(), after);
      }
    }
  }

  std::vector<T> mem_;
  size_t size_ = 0;
  std::unique_ptr<SpillFile> file_;
  mutable std::unique_ptr<Slot[]> slots_;
};

}  // namespace sl::runtime
