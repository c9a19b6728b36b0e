// The streaming read (StreamedLog.h) against the read that holds every record: the same timeline
// and the same SL901 findings on every log recorded on the H200 (tests/runtime/fixtures), whole
// and cut off mid-chunk; and a log that changes between the passes is refused.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "runtime/CallSite.h"
#include "runtime/HostBlocking.h"
#include "runtime/StreamedLog.h"

namespace sl::runtime::test {
namespace {

void collect(const std::string& dir, std::vector<std::string>& out) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name, path = dir + "/" + n;
    struct stat st;
    if (n == "." || n == ".." || stat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) collect(path, out);
    else if (n.size() > 5 && n.compare(n.size() - 5, 5, ".slog") == 0) out.push_back(path);
  }
  closedir(d);
}

std::vector<std::string> allFixtures() {
  std::vector<std::string> out;
  collect(SL_FIXTURES_DIR, out);
  std::sort(out.begin(), out.end());
  return out;
}

bool pollsOut(const slog::ApiRecord& r) { return slog::apiClass(r.api) != slog::ApiClass::Query || r.ret == 0; }

void expectSame(const ProcessTimeline& a, const ProcessTimeline& b) {
  ASSERT_EQ(a.calls.size(), b.calls.size());
  for (size_t i = 0; i < a.calls.size(); ++i) {
    const HostCall &x = a.calls[i], &y = b.calls[i];
    ASSERT_TRUE(x.tid == y.tid && x.api == y.api && x.enterNs == y.enterNs && x.exitNs == y.exitNs &&
                x.stream == y.stream && x.a0 == y.a0 && x.a1 == y.a1 && x.a2 == y.a2 && x.ret == y.ret &&
                x.kind == y.kind && x.corr == y.corr && x.loc == y.loc && x.attributedLoc == y.attributedLoc &&
                x.blocking == y.blocking && x.gpuTimed == y.gpuTimed && x.nameId == y.nameId)
        << "call " << i;
  }
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const GpuOp &x = a.ops[i], &y = b.ops[i];
    ASSERT_TRUE(x.kind == y.kind && x.copyKind == y.copyKind && x.device == y.device && x.stream == y.stream &&
                x.startNs == y.startNs && x.endNs == y.endNs && x.bytes == y.bytes && x.name == y.name &&
                x.call == y.call)
        << "op " << i;
  }
  ASSERT_EQ(a.locations.size(), b.locations.size());
  for (size_t i = 0; i < a.locations.size(); ++i) {
    EXPECT_EQ(a.locations[i].path, b.locations[i].path);
    EXPECT_EQ(a.locations[i].line, b.locations[i].line);
    EXPECT_EQ(a.locations[i].function, b.locations[i].function);
  }
  ASSERT_EQ(a.streams.size(), b.streams.size());
  for (size_t i = 0; i < a.streams.size(); ++i) {
    EXPECT_EQ(a.streams[i].label(), b.streams[i].label());
    EXPECT_EQ(a.streams[i].busyNs, b.streams[i].busyNs);
    EXPECT_EQ(a.streams[i].blocking, b.streams[i].blocking);
  }
  EXPECT_EQ(a.pythonThreads, b.pythonThreads);
  EXPECT_EQ(a.gpuTiming, b.gpuTiming);
  EXPECT_EQ(a.sampled, b.sampled);
  EXPECT_EQ(a.beginNs, b.beginNs);
  EXPECT_EQ(a.endNs, b.endNs);
  EXPECT_EQ(a.timedNs, b.timedNs);
  EXPECT_EQ(a.collectives.size(), b.collectives.size());
}

// Held read + buildTimeline + measuredHostBlocking against the streamed read of `path`.
void compareReads(const std::string& path) {
  ProcessLog held;
  std::string error;
  ReadOptions ro;
  ro.keep = pollsOut;
  ASSERT_TRUE(readLog(path, held, error, ro)) << error;
  Symbolizer sym1;
  ProcessTimeline whole = buildTimeline(held, sym1);
  HostBlockingOptions hb;
  hb.minBlockingMicros = 0;
  std::vector<ProcessLog> logs;
  logs.push_back(held);
  std::vector<Finding> heldFindings = measuredHostBlocking(logs, hb, sym1);

  ProcessLog meta;
  ReadOptions first;
  first.keep = pollsOut;
  first.onCall = [](const ApiCall&, const uint64_t*) {};
  first.keepActivities = false;
  ASSERT_TRUE(readLog(path, meta, error, first)) << error;
  EXPECT_TRUE(meta.calls.empty());
  EXPECT_TRUE(meta.activities.empty());
  EXPECT_EQ(meta.keptCalls, held.calls.size());
  EXPECT_EQ(meta.problems, held.problems);
  Symbolizer sym2;
  HostBlockingSites sites;
  ProcessTimeline streamed;
  ASSERT_TRUE(streamTimeline(meta, pollsOut, sym2, &sites, streamed, error)) << error;
  expectSame(whole, streamed);
  std::vector<ProcessTimeline> timelines;
  timelines.push_back(std::move(streamed));
  std::vector<Finding> streamedFindings = sites.findings(timelines, hb);
  ASSERT_EQ(heldFindings.size(), streamedFindings.size());
  for (size_t i = 0; i < heldFindings.size(); ++i) {
    EXPECT_EQ(heldFindings[i].path, streamedFindings[i].path);
    EXPECT_EQ(heldFindings[i].message, streamedFindings[i].message);
    EXPECT_EQ(heldFindings[i].properties, streamedFindings[i].properties);
  }
}

TEST(StreamedLog, SameTimelineAndHostBlockingAsTheHeldRead) {
  auto files = allFixtures();
  ASSERT_GE(files.size(), 10u) << SL_FIXTURES_DIR;
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    compareReads(f);
  }
}

// A log cut off mid-chunk (a killed run): both reads stop at the same record.
TEST(StreamedLog, SameOnALogCutOffMidChunk) {
  auto files = allFixtures();
  std::string tmp = ::testing::TempDir() + "streamed_cut.slog";
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    std::ifstream in(f, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(tmp, std::ios::binary) << bytes.substr(0, bytes.size() * 3 / 5 + 3);
    compareReads(tmp);
  }
  unlink(tmp.c_str());
}

TEST(StreamedLog, RefusesALogThatChangedBetweenThePasses) {
  auto files = allFixtures();
  ASSERT_GE(files.size(), 2u);
  ProcessLog meta;
  std::string error;
  ReadOptions first;
  first.onCall = [](const ApiCall&, const uint64_t*) {};
  first.keepActivities = false;
  ASSERT_TRUE(readLog(files[0], meta, error, first)) << error;
  // Another log at the same path by the time of the second pass.
  auto other = std::find_if(files.begin(), files.end(), [&](const std::string& f) {
    ProcessLog l;
    std::string e;
    return readLog(f, l, e, first) && l.keptCalls != meta.keptCalls;
  });
  ASSERT_NE(other, files.end());
  meta.path = *other;
  Symbolizer sym;
  ProcessTimeline t;
  EXPECT_FALSE(streamTimeline(meta, nullptr, sym, nullptr, t, error));
  EXPECT_NE(error.find("changed while it was being read"), std::string::npos) << error;
}

}  // namespace
}  // namespace sl::runtime::test
