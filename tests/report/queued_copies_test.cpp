// SL901 and asynchronous copies: a cudaMemcpyAsync whose GPU record says no pageable memory took
// part (the DataLoader's pinned batch, `x.cuda(non_blocking=True)`) was queued and waited for
// nothing; its host time is the call's cost, not blocking, and "pin it" would be wrong advice.
// A pageable one, or one whose memory CUPTI did not say (older recorders), still counts.
#include <gtest/gtest.h>

#include "LogBuilder.h"
#include "runtime/HostBlocking.h"
#include "runtime/Symbolizer.h"

namespace sl::runtime::test {
namespace {

constexpr uint8_t kPageable = 1, kPinned = 2, kDevice = 3;

// An async host-to-device copy from train.py:`line` taking 200 us of host time, and its GPU copy.
void copy(LogBuilder& b, uint64_t atNs, uint32_t line, uint8_t srcKind) {
  b.call(slog::Api::cudaMemcpyAsync, atNs, atNs + 200000, line);
  b.log.calls.back().rec.kind = 1;  // cudaMemcpyHostToDevice
  slog::ActivityRecord a{};
  a.h = {slog::RecType::Activity, sizeof a};
  a.kind = slog::ActivityKind::Memcpy;
  a.copyKind = 1;
  a.srcKind = srcKind;
  a.dstKind = srcKind ? kDevice : 0;
  a.start = atNs + 50000;
  a.end = atNs + 400000;
  a.bytes = 1 << 20;
  a.correlationId = uint32_t(b.log.activities.size() + 1);
  a.streamId = 13;
  b.log.activities.push_back(a);
  b.log.activityRecords++;
}

std::vector<uint32_t> flaggedLines(const LogBuilder& b) {
  Symbolizer sym;
  HostBlockingOptions o;
  o.minBlockingMicros = 0;
  std::vector<uint32_t> lines;
  for (const auto& f : measuredHostBlocking({b.log}, o, sym)) lines.push_back(f.loc.line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

TEST(QueuedCopies, APinnedAsyncCopyIsNotHostBlocking) {
  LogBuilder b;
  copy(b, 1 * kMs, 40, kPinned);
  copy(b, 2 * kMs, 41, kPageable);
  copy(b, 3 * kMs, 40, kPinned);
  b.trailer(slog::GpuTiming::Continuous);
  EXPECT_EQ(flaggedLines(b), std::vector<uint32_t>{41});
}

TEST(QueuedCopies, CopiesWhoseMemoryIsUnknownStillCount) {
  LogBuilder b;
  copy(b, 1 * kMs, 40, 0);  // a recorder before srcKind/dstKind: nothing known
  copy(b, 2 * kMs, 41, kPageable);
  b.trailer(slog::GpuTiming::Continuous);
  EXPECT_EQ(flaggedLines(b), (std::vector<uint32_t>{40, 41}));
}

}  // namespace
}  // namespace sl::runtime::test
