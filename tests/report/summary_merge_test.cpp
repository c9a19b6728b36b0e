// Merging rank summaries (RankSummary.h) refuses a set that is not one job's ranks, and skips
// what is not a file, instead of aligning two jobs' collectives or blocking on a FIFO (issue 33).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "RankLogs.h"
#include "../TempDir.h"
#include "runtime/Communication.h"
#include "runtime/RankSummary.h"
#include "runtime/ReportCommand.h"

using namespace sl::runtime;
using namespace sl::runtime::test;

namespace {

RankView rankOf(int rank, int worldSize = 2, const std::string& job = "") {
  RankLog r(rank);
  r.allReduce(3 * kMs);
  r.ncclKernel(3 * kMs + 10000, 4 * kMs);
  ProcessTimeline t = timelineOf(r.log);
  RankView v = rankView(t, analyzeCommunication(t));
  v.worldSize = worldSize;
  v.jobId = job;
  return v;
}

std::string summaryOf(std::vector<RankView> views) { return rankSummaryJson(views).dump(); }

// The merge's error, "" when it merged.
std::string mergeError(const std::vector<std::string>& inputs) {
  std::vector<RankView> views;
  std::string error;
  return readRankSummaries(inputs, views, error) ? "" : error;
}

}  // namespace

// An earlier job's summary left in the directory: "4 ranks for world size 2", then SL906.
TEST(SummaryMerge, RankTwiceNamesBothFiles) {
  TempDir dir("merge_twice");
  std::string a = dir.write("a-old.json", summaryOf({rankOf(0), rankOf(1)}));
  std::string b = dir.write("b-new.json", summaryOf({rankOf(0), rankOf(1)}));
  std::string error = mergeError({dir.dir.string()});
  EXPECT_NE(error.find("rank 0 twice"), std::string::npos) << error;
  EXPECT_NE(error.find(a), std::string::npos) << error;
  EXPECT_NE(error.find(b), std::string::npos) << error;
  EXPECT_EQ(reportMain({dir.dir.string()}, {}), 2);
}

TEST(SummaryMerge, OtherWorldSizeOrJobOrRankBeyondTheWorld) {
  TempDir dir("merge_mixed");
  std::string two = dir.write("two.json", summaryOf({rankOf(0, 2)}));
  std::string four = dir.write("four.json", summaryOf({rankOf(1, 4)}));
  std::string error = mergeError({two, four});
  EXPECT_NE(error.find("world size 2 in " + two + " but 4 in " + four), std::string::npos) << error;

  std::string j1 = dir.write("j1.json", summaryOf({rankOf(0, 2, "job1")}));
  std::string j2 = dir.write("j2.json", summaryOf({rankOf(1, 2, "job2")}));
  error = mergeError({j1, j2});
  EXPECT_NE(error.find("job job1 in " + j1 + " but job job2 in " + j2), std::string::npos) << error;

  std::string beyond = dir.write("beyond.json", summaryOf({rankOf(2, 2)}));
  error = mergeError({beyond});
  EXPECT_NE(error.find(beyond + ": rank 2 in a world of size 2"), std::string::npos) << error;

  // One job's ranks from two nodes' files merge.
  std::string n0 = dir.write("n0.json", summaryOf({rankOf(0, 2, "job1")}));
  std::string n1 = dir.write("n1.json", summaryOf({rankOf(1, 2, "job1")}));
  EXPECT_EQ(mergeError({n0, n1}), "");
}

// A FIFO named *.json blocked the merge; a *.json link to /dev/zero grew without bound.
TEST(SummaryMerge, SpecialFilesAreSkippedOrRefused) {
  TempDir dir("merge_special");
  dir.write("s/node.json", summaryOf({rankOf(0), rankOf(1)}));
  const std::string fifo = (dir.dir / "s" / "pipe.json").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(symlink("/dev/zero", (dir.dir / "s" / "zero.json").c_str()), 0);
  std::vector<RankView> views;
  std::string error;
  EXPECT_TRUE(readRankSummaries({(dir.dir / "s").string()}, views, error)) << error;
  EXPECT_EQ(views.size(), 2u);
  error = mergeError({fifo});
  EXPECT_NE(error.find(fifo + ": not a regular file"), std::string::npos) << error;
}
