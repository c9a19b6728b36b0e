// The recorder's reader of the caching allocator's pickled snapshot (interposer/src/SnapshotPickle.h):
// a real LibTorch 2.11 snapshot from the H200 and Python pickles of the same shape.
#include "SnapshotPickle.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

using sl::ip::SnapshotEntry;

namespace {

std::string bytesOf(const std::string& name) {
  std::ifstream in("tests/runtime/fixtures/snapshot/" + name, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<SnapshotEntry> read(const std::string& bytes, std::string* error = nullptr) {
  std::vector<SnapshotEntry> out;
  std::string e;
  bool ok = sl::ip::readSnapshotTrace(bytes.data(), bytes.size(), out, e);
  if (error) *error = ok ? "" : e;
  else EXPECT_TRUE(ok) << e;
  return out;
}

}  // namespace

// LibTorch's own pickler (torch::cuda::_memory_snapshot_pickled, recorded on the H200): the
// probe made three tensors and a temporary; the trace holds 2 segments, 4 allocations, one free.
TEST(SnapshotPickle, LibTorchSnapshotFromTheH200) {
  auto e = read(bytesOf("libtorch-2.11-early.pkl"));
  ASSERT_EQ(e.size(), 8u);
  EXPECT_EQ(e[0].action, 4u);  // segment_alloc
  EXPECT_EQ(e[0].addr, 139885079953408ull);
  EXPECT_EQ(e[0].size, 20971520u);
  EXPECT_EQ(e[0].timeUs, 1796167380712854ull);
  EXPECT_EQ(e[1].action, 1u);  // alloc
  EXPECT_EQ(e[1].size, 4194304u);
  EXPECT_EQ(e[6].action, 2u);  // free_requested
  EXPECT_EQ(e[7].action, 3u);  // free_completed
  for (const auto& x : e) EXPECT_EQ(x.device, 0u);
}

// Python's pickler (protocols 2 and 5: frames, short strings, MEMOIZE), two devices, an address
// with the top bit set, an action SL904 does not use, nested segment data to skip.
TEST(SnapshotPickle, PythonPicklesOfBothProtocols) {
  for (const char* name : {"python-protocol2.pkl", "python-protocol5.pkl"}) {
    SCOPED_TRACE(name);
    auto e = read(bytesOf(name));
    ASSERT_EQ(e.size(), 6u);
    EXPECT_EQ(e[0].action, 4u);
    EXPECT_EQ(e[0].addr, (1ull << 47) + 4096);
    EXPECT_EQ(e[3].action, 0u);  // oom: kept as "unused"
    EXPECT_EQ(e[4].device, 1u);
    EXPECT_EQ(e[4].addr, ~0ull - 4095);
    EXPECT_EQ(e[4].stream, 94000000000000ull);
    EXPECT_EQ(e[5].action, 3u);
    EXPECT_EQ(e[5].timeUs, 1796167380712890ull);
  }
}

// Bad bytes are an error with a reason, never a crash: every truncation of a real snapshot, and
// an object the snapshot never holds.
TEST(SnapshotPickle, TruncatedOrForeignBytesAreErrors) {
  std::string all = bytesOf("libtorch-2.11-early.pkl");
  for (size_t n = 0; n < all.size(); ++n) {
    std::string error;
    read(all.substr(0, n), &error);
    EXPECT_FALSE(error.empty()) << "cut at " << n;
  }
  std::string error;
  read(std::string("\x80\x02" "cos\nsystem\n", 13), &error);  // GLOBAL: code, not data
  EXPECT_NE(error.find("opcode 0x63"), std::string::npos) << error;
  read(std::string("\x80\x02}.", 4), &error);
  EXPECT_NE(error.find("device_traces"), std::string::npos) << error;
}
