// The trace entries of a pickled caching-allocator snapshot (the bytes LibTorch's
// torch::cuda::_memory_snapshot_pickled() returns; Python's torch.cuda.memory._snapshot() is the
// same data): {"device_traces": [[{"action": "alloc", "addr": .., "size": .., "stream": ..,
// "time_us": ..}, ...] per device], "segments": [...], ...}.
//
// Only what that data uses is read (protocol 2 to 5: dicts, lists, tuples, strings, ints,
// floats, booleans, None, the memo), without building the whole object: each finished dict
// holding an "action" is turned into an entry at once, so a snapshot of a million entries costs
// the entries, not a tree of ten million values. No exceptions, no allocation beyond the vectors.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sl::ip {

struct SnapshotEntry {
  uint64_t action = 0;  // slog::BlockAction; 0 for actions SL904 does not use (oom, snapshot, ...)
  uint64_t addr = 0, size = 0, stream = 0;
  uint64_t device = 0;  // index of the entry's list in device_traces
  uint64_t timeUs = 0;  // the allocator's clock: CLOCK_REALTIME in microseconds
};

// Fills `out` with the entries of `device_traces`, in order. Returns false with `error` set on
// bytes it cannot read (an opcode outside that subset, a truncated stream).
bool readSnapshotTrace(const char* data, size_t n, std::vector<SnapshotEntry>& out, std::string& error);

}  // namespace sl::ip
