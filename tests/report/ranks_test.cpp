// Many ranks (issue 14) on logs built in the test: compute against communication and exposed
// communication per rank, NCCL kernels joined to their calls, collectives aligned across ranks
// with their waits and the straggler, SL906, and the rank summaries' round trip and errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "RankLogs.h"
#include "../TempDir.h"
#include "runtime/Communication.h"
#include "runtime/HtmlReport.h"
#include "runtime/PerfettoTrace.h"
#include "runtime/RankAlignment.h"
#include "runtime/RankSummary.h"
#include "runtime/RanksReport.h"
#include "runtime/ReportCommand.h"
#include "runtime/RuntimeRules.h"

using namespace sl::runtime;
using namespace sl::runtime::test;

namespace {

// Compute [1, 11) ms on stream 7, an all-reduce called at 10 ms whose kernel runs [10, 14) ms on
// NCCL's stream 20, and one more compute kernel [12, 13) ms: 2 ms of the 4 ms overlapped.
RankLog partlyOverlapped() {
  RankLog r(0);
  r.compute(1 * kMs, 11 * kMs);
  r.allReduce(10 * kMs);
  r.ncclKernel(10 * kMs, 14 * kMs);
  r.compute(12 * kMs, 13 * kMs, 11);
  return r;
}

// One of two ranks, three all-reduces; rank 1 arrives `lateNs` later every time, after its line 40.
RankLog stepRank(int rank, uint64_t lateNs) {
  RankLog r(rank);
  for (uint64_t step = 0; step < 3; ++step) {
    uint64_t t0 = (1 + 20 * step) * kMs;
    r.compute(t0, t0 + 2 * kMs, rank == 1 ? 40 : 10);
    uint64_t arrive = t0 + 3 * kMs + (rank == 1 ? lateNs : 0);
    r.allReduce(arrive);
    r.ncclKernel(arrive + 10000, t0 + 3 * kMs + lateNs + 1 * kMs);
  }
  return r;
}

std::vector<RankView> twoRanks(uint64_t lateNs) {
  std::vector<RankView> views;
  for (int rank = 0; rank < 2; ++rank) {
    ProcessTimeline t = timelineOf(stepRank(rank, lateNs).log);
    views.push_back(rankView(t, analyzeCommunication(t)));
  }
  return views;
}

// `streamlint report ARGS` in this process: exit status and stdout.
std::pair<int, std::string> report(const std::vector<std::string>& args) {
  testing::internal::CaptureStdout();
  int rc = reportMain(args, {});
  return {rc, testing::internal::GetCapturedStdout()};
}

}  // namespace

TEST(Ranks, ComputeCommunicationAndExposedTime) {
  RankLog r = partlyOverlapped();
  ProcessTimeline t = timelineOf(r.log);
  CommSummary c = analyzeCommunication(t);
  EXPECT_EQ(c.computeNs, 11 * kMs);  // [1, 11) and [12, 13) on stream 7
  EXPECT_EQ(c.commNs, 4 * kMs);
  EXPECT_EQ(c.exposedNs, 2 * kMs);   // [11, 12) and [13, 14)
  ASSERT_EQ(c.commStreams.size(), 1u);
  EXPECT_TRUE(c.isCommStream(0, 20));
  ASSERT_EQ(c.collectives.size(), 1u);
  const CollectiveCall& a = c.collectives[0];
  EXPECT_EQ(a.kind, "AllReduce");
  EXPECT_EQ(a.bytes, 4u << 20);
  EXPECT_EQ(a.nranks, 2);
  EXPECT_EQ(a.stream, 0x7777u);
  EXPECT_EQ(a.seq, 0u);
  EXPECT_EQ(a.gpuNs, 4 * kMs);
  EXPECT_EQ(a.exposedNs, 2 * kMs);
  ASSERT_GE(a.loc, 0);
  EXPECT_EQ(t.locations[a.loc].line, 50u);
  EXPECT_TRUE(c.notes.empty());
}

TEST(Ranks, GroupedPointToPointShareOneKernel) {
  RankLog r(0);
  r.log.strings[kNcclKernelName] = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
  r.call(sl::slog::Api::ncclGroupStart, 1 * kMs, 1 * kMs + 100, 60);
  r.nccl(sl::slog::Api::ncclSend, 1 * kMs + 1000, 61, 256, 2, 0xc0ffee, 0x7777, 1);
  r.nccl(sl::slog::Api::ncclRecv, 1 * kMs + 2000, 62, 256, 2, 0xc0ffee, 0x7777, 1);
  r.call(sl::slog::Api::ncclGroupEnd, 1 * kMs + 30000, 1 * kMs + 40000, 63);
  r.ncclKernel(2 * kMs, 3 * kMs);
  CommSummary c = analyzeCommunication(timelineOf(r.log));
  ASSERT_EQ(c.collectives.size(), 2u);
  EXPECT_EQ(c.collectives[0].group, c.collectives[1].group);
  EXPECT_EQ(c.collectives[0].peer, 1);
  EXPECT_EQ(c.collectives[1].seq, 1u);
  for (const auto& x : c.collectives) EXPECT_EQ(x.gpuNs, 1 * kMs) << x.kind;
}

TEST(Ranks, NoNcclSaysWhatWasNotMeasured) {
  RankLog r(0);
  r.compute(1 * kMs, 2 * kMs);
  CommSummary c = analyzeCommunication(timelineOf(r.log));
  EXPECT_EQ(c.commNs, 0u);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("no NCCL calls"), std::string::npos);
}

TEST(Ranks, StragglerAndWaits) {
  std::vector<RankView> views = twoRanks(2 * kMs);
  RankAlignment a = alignRanks(views);
  ASSERT_EQ(a.collectives.size(), 3u);
  EXPECT_EQ(a.straggler, 1);
  EXPECT_EQ(a.ranks[0].waitedNs, 6 * kMs);
  EXPECT_EQ(a.ranks[1].waitedNs, 0u);
  EXPECT_EQ(a.ranks[1].lastCount, 3u);
  EXPECT_EQ(a.ranks[1].causedNs, 6 * kMs);
  EXPECT_FALSE(a.realtimeClock);

  std::vector<sl::Finding> f = exposedCommunication(views, a, RuntimeRuleOptions{});
  auto straggler = std::find_if(f.begin(), f.end(), [](const sl::Finding& x) { return x.properties.value("straggler", false); });
  ASSERT_NE(straggler, f.end());
  EXPECT_EQ(straggler->ruleId, "SL906");
  EXPECT_EQ(straggler->path, kTrainPy);
  EXPECT_EQ(straggler->loc.line, 40u);  // rank 1's last line before it arrived
  EXPECT_EQ(straggler->properties["rank"], 1);
}

TEST(Ranks, RanksArrivingTogetherHaveNoStraggler) {
  std::vector<RankView> views = twoRanks(0);
  RankAlignment a = alignRanks(views);
  EXPECT_EQ(a.collectives.size(), 3u);
  EXPECT_EQ(a.straggler, -1);
  for (const auto& f : exposedCommunication(views, a, RuntimeRuleOptions{}))
    EXPECT_FALSE(f.properties.value("straggler", false)) << f.message;
}

TEST(Ranks, HostsDifferArrivalsOnRealtime) {
  std::vector<RankView> views = twoRanks(0);
  views[1].host = "node2";
  views[1].realtimeOffsetNs = 5 * int64_t(kMs);  // node2's monotonic clock is 5 ms behind
  RankAlignment a = alignRanks(views);
  EXPECT_TRUE(a.realtimeClock);
  EXPECT_EQ(a.straggler, 1);
  EXPECT_EQ(a.ranks[0].waitedNs, 15 * kMs);
}

TEST(Ranks, CommunicatorsOfOneRankAreNotAligned) {
  std::vector<RankView> views;
  for (int rank = 0; rank < 2; ++rank) {
    RankLog r(rank);
    r.allReduce((1 + rank) * kMs, 50, 1024, 1);
    ProcessTimeline t = timelineOf(r.log);
    views.push_back(rankView(t, analyzeCommunication(t)));
  }
  RankAlignment a = alignRanks(views);
  EXPECT_TRUE(a.collectives.empty());
  ASSERT_FALSE(a.notes.empty());
  EXPECT_NE(a.notes[0].find("world size 1"), std::string::npos);
}

TEST(Ranks, ExposedCommunicationFinding) {
  RankLog bad(0);  // compute, then an all-reduce that nothing overlaps
  bad.compute(1 * kMs, 5 * kMs);
  bad.allReduce(5 * kMs, 70);
  bad.ncclKernel(5 * kMs, 7 * kMs);
  RankLog good(0);  // the same all-reduce under compute
  good.compute(1 * kMs, 8 * kMs);
  good.allReduce(2 * kMs, 70);
  good.ncclKernel(3 * kMs, 5 * kMs);
  for (auto* r : {&bad, &good}) {
    ProcessTimeline t = timelineOf(r->log);
    std::vector<RankView> views{rankView(t, analyzeCommunication(t))};
    std::vector<sl::Finding> f = exposedCommunication(views, alignRanks(views), RuntimeRuleOptions{});
    if (r == &good) {
      EXPECT_TRUE(f.empty());
      continue;
    }
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].loc.line, 70u);
    EXPECT_DOUBLE_EQ(f[0].properties["exposedMicros"].get<double>(), 2000);
    EXPECT_DOUBLE_EQ(f[0].properties["exposedShare"].get<double>(), 1.0);
  }
}

TEST(Ranks, SummaryRoundTripGivesTheSameAlignment) {
  std::vector<RankView> views = twoRanks(2 * kMs);
  TempDir dir("rank_summary");
  std::string path = dir.write("node1.json", rankSummaryJson(views).dump());
  std::vector<RankView> back;
  std::string error;
  ASSERT_TRUE(readRankSummaries({dir.dir.string()}, back, error)) << error;
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].collectives[2].delayLine, 40u);
  EXPECT_EQ(back[1].commNs, views[1].commNs);
  RankAlignment a = alignRanks(back), b = alignRanks(views);
  EXPECT_EQ(a.straggler, b.straggler);
  EXPECT_EQ(a.ranks[0].waitedNs, b.ranks[0].waitedNs);
  EXPECT_TRUE(isSummaryInput(path));
  EXPECT_TRUE(isSummaryInput(dir.dir.string()));
}

TEST(Ranks, BadSummariesAreInputErrors) {
  TempDir dir("bad_summary");
  auto expectError = [&](const std::string& text, const std::string& why) {
    std::string path = dir.write("s.json", text);
    std::vector<RankView> views;
    std::string error;
    EXPECT_FALSE(readRankSummaries({path}, views, error)) << text;
    EXPECT_NE(error.find(path), std::string::npos) << error;
    EXPECT_NE(error.find(why), std::string::npos) << error;
    EXPECT_EQ(reportMain({path}, {}), 2) << text;
  };
  expectError("{\"streamlintRankSummary\": 1, \"ranks\": [", "not valid JSON");
  expectError("{\"ranks\": []}", "not a streamlint rank summary");
  expectError("{\"streamlintRankSummary\": 99, \"ranks\": []}", "version 99");
  expectError("{\"streamlintRankSummary\": 1, \"ranks\": [{\"rank\": \"zero\"}]}", "bad rank summary");
}

// SL902 judges side streams against the main one; NCCL's stream, busier than compute here, is
// neither main (compute would be flagged as a side stream that overlapped nothing) nor judged.
TEST(Ranks, Sl902LeavesNcclStreamsToSl906) {
  RankLog r(0);
  r.compute(1 * kMs, 3 * kMs);
  r.allReduce(3 * kMs);
  r.ncclKernel(3 * kMs, 9 * kMs);
  RunData run;
  run.timelines.push_back(timelineOf(r.log));
  run.overlaps.push_back(analyzeOverlap(run.timelines[0]));
  run.comms.push_back(analyzeCommunication(run.timelines[0]));
  for (const auto& f : sideStreamNoOverlap(run, RuntimeRuleOptions{})) ADD_FAILURE() << f.message;
  run.comms.clear();  // without the communication analysis: the compute stream is the "side" one
  EXPECT_EQ(sideStreamNoOverlap(run, RuntimeRuleOptions{}).size(), 1u);
}

// The command line end to end: logs written as the recorder writes them, read back (collective
// records included); the summary step, then the merge, give the straggler the logs give.
TEST(Ranks, ReportOverLogsAndOverSummaries) {
  TempDir dir("rank_logs");
  for (int rank = 0; rank < 2; ++rank) {
    RankLog r = stepRank(rank, 2 * kMs);
    dir.write("logs/node1-" + std::to_string(r.log.header.pid) + ".slog", slogBytes(r.log));
  }
  const std::string logs = (dir.dir / "logs").string(), summary = (dir.dir / "node1.json").string();
  auto [rc, out] = report({logs, "--format", "json"});
  EXPECT_EQ(rc, 1);
  nlohmann::json direct = nlohmann::json::parse(out);
  const auto& ranks = direct["run"]["ranks"];
  EXPECT_EQ(ranks["straggler"], 1);
  ASSERT_EQ(ranks["ranks"].size(), 2u);
  EXPECT_EQ(ranks["ranks"][0]["ncclCallList"].size(), 3u);
  EXPECT_EQ(ranks["ranks"][0]["ncclCallList"][2]["seq"], 2);
  EXPECT_EQ(ranks["ranks"][0]["ncclCallList"][2]["dtype"], "float32");
  EXPECT_DOUBLE_EQ(ranks["ranks"][0]["waitedMicros"].get<double>(), 6000);
  EXPECT_EQ(ranks["alignedCollectives"].size(), 3u);

  ASSERT_EQ(report({logs, "--summary", summary}).first, 0);
  auto [mergedRc, merged] = report({summary, "--format", "json"});
  EXPECT_EQ(mergedRc, 1);
  nlohmann::json m = nlohmann::json::parse(merged);
  EXPECT_EQ(m["run"]["ranks"]["straggler"], 1);
  EXPECT_EQ(m["run"]["ranks"]["alignedCollectives"], ranks["alignedCollectives"]);
  bool straggler = false;  // at rank 1's line 40 (rank 0's exposed waiting is the other SL906)
  for (const auto& f : m["findings"]) straggler |= f["rule"] == "SL906" && f["line"] == 40;
  EXPECT_TRUE(straggler) << merged;

  auto [textRc, text] = report({summary});
  EXPECT_NE(text.find("straggler: rank 1"), std::string::npos) << text;
}

// H200 logs (tests/runtime/fixtures/ranks/README.md). NCCL with world size 1: the API path.
TEST(RanksFixtures, NcclWorldSizeOne) {
  auto [rc, out] = report({std::string(SL_FIXTURES_DIR) + "/ranks/nccl1-ddp.slog", "--format", "json"});
  ASSERT_TRUE(rc == 0 || rc == 1) << rc;
  nlohmann::json ranks = nlohmann::json::parse(out)["run"]["ranks"];
  ASSERT_EQ(ranks["ranks"].size(), 1u);
  const auto& r = ranks["ranks"][0];
  EXPECT_EQ(r["rank"], 0);
  EXPECT_GT(r["ncclCalls"].get<int>(), 10);
  std::set<std::string> kinds;
  std::map<int, uint64_t> nextSeq;  // per communicator: 0, 1, 2... in call order
  for (const auto& c : r["ncclCallList"]) {
    kinds.insert(c["collective"].get<std::string>());
    EXPECT_EQ(c["nranks"], 1);
    EXPECT_EQ(c["seq"].get<uint64_t>(), nextSeq[c["communicator"].get<int>()]++);
  }
  EXPECT_TRUE(kinds.count("AllReduce")) << r["ncclCallList"].dump();
  EXPECT_TRUE(ranks["alignedCollectives"].empty());
  bool said = false;
  for (const auto& n : r["notes"]) said |= n.get<std::string>().find("no NCCL kernel") != std::string::npos;
  EXPECT_TRUE(said) << r["notes"].dump();
}

// gloo, two ranks on one GPU: ranks from the headers, and what could not be measured.
TEST(RanksFixtures, GlooTwoRanks) {
  auto [rc, out] = report({std::string(SL_FIXTURES_DIR) + "/ranks/gloo2-slow", "--format", "json"});
  ASSERT_TRUE(rc == 0 || rc == 1) << rc;
  nlohmann::json ranks = nlohmann::json::parse(out)["run"]["ranks"];
  ASSERT_EQ(ranks["ranks"].size(), 2u);
  EXPECT_EQ(ranks["ranks"][0]["rank"], 0);
  EXPECT_EQ(ranks["ranks"][1]["rank"], 1);
  for (const auto& r : ranks["ranks"]) {
    EXPECT_EQ(r["ncclCalls"], 0);
    EXPECT_EQ(r["worldSize"], -1);  // a header written before the launcher fields
    ASSERT_FALSE(r["notes"].empty());
    EXPECT_NE(r["notes"][0].get<std::string>().find("no NCCL calls"), std::string::npos);
  }
  auto [textRc, text] = report({std::string(SL_FIXTURES_DIR) + "/ranks/gloo2-slow"});
  EXPECT_NE(text.find("Ranks: 2 processes on 1 host"), std::string::npos) << text;
}

// The trace groups each rank's processes, ranks in order whatever the log order, and marks
// NCCL's streams.
TEST(Ranks, TraceHasATrackGroupPerRank) {
  std::vector<ProcessTimeline> timelines{timelineOf(stepRank(1, 0).log), timelineOf(stepRank(0, 0).log)};
  std::ostringstream os;
  writePerfettoTrace(os, timelines);
  const std::string trace = os.str();
  size_t rank0 = trace.find("\"host rank 0 pid 1000"), gpu0 = trace.find("\"GPU 0 (rank 0 pid 1000)"),
         rank1 = trace.find("\"host rank 1 pid 1001");
  ASSERT_NE(rank0, std::string::npos) << trace.substr(0, 2000);
  ASSERT_NE(gpu0, std::string::npos);
  ASSERT_NE(rank1, std::string::npos);
  EXPECT_LT(rank0, gpu0);
  EXPECT_LT(gpu0, rank1);
  EXPECT_NE(trace.find("stream 20 (NCCL)"), std::string::npos);
}

// Summaries hold no timeline: asking for one from them is a usage error, as is an unwritable
// summary; neither crashes.
TEST(Ranks, SummaryUsageErrors) {
  TempDir dir("summary_usage");
  RankLog r = stepRank(0, 0);
  const std::string log = dir.write("logs/node1-1000.slog", slogBytes(r.log));
  const std::string summary = (dir.dir / "s.json").string();
  ASSERT_EQ(report({log, "--summary", summary}).first, 0);
  EXPECT_EQ(report({summary, "--html", (dir.dir / "r.html").string()}).first, 2);
  EXPECT_EQ(report({summary, "--summary", (dir.dir / "t.json").string()}).first, 2);
  EXPECT_EQ(report({log, "--summary", (dir.dir / "no/such/dir/s.json").string()}).first, 2);
}

// The HTML page has a Ranks table: a row per rank with its waits, notes escaped.
TEST(Ranks, HtmlHasARanksTable) {
  HtmlReportInput in;
  in.ranks = twoRanks(2 * kMs);
  in.ranks[1].notes.push_back("<b>a note</b>");
  in.align = alignRanks(in.ranks);
  std::ostringstream os;
  writeHtmlReport(os, in);
  const std::string page = os.str();
  size_t table = page.find("<h2>Ranks</h2>");
  ASSERT_NE(table, std::string::npos);
  EXPECT_NE(page.find("<tr><td>1</td><td>pid 1001 on node1</td>", table), std::string::npos);
  EXPECT_NE(page.find("6.00 ms", table), std::string::npos) << page.substr(table, 1500);  // rank 0 waited
  EXPECT_NE(page.find("&lt;b&gt;a note&lt;/b&gt;", table), std::string::npos);
  EXPECT_EQ(page.find("<b>a note</b>"), std::string::npos);
}

// An hour's run has millions of NCCL calls: the JSON lists that grow with the log stop at
// kJsonListCap and say so; the counts and sums still cover every call.
TEST(Ranks, JsonListsStopAtTheCapAndSaySo) {
  const uint64_t n = kJsonListCap + 5;
  std::vector<RankView> views;
  for (int rank = 0; rank < 2; ++rank) {
    RankLog r(rank);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t t0 = (1 + 2 * i) * kMs;
      r.allReduce(t0 + (rank ? 100000 : 0));
      r.ncclKernel(t0 + 200000, t0 + kMs);
    }
    ProcessTimeline t = timelineOf(r.log);
    views.push_back(rankView(t, analyzeCommunication(t)));
  }
  RankAlignment a = alignRanks(views);
  ASSERT_EQ(a.collectives.size(), n);
  nlohmann::json j = ranksJson(views, a, true);
  EXPECT_EQ(j["ranks"][0]["ncclCalls"], n);
  EXPECT_EQ(j["ranks"][0]["ncclCallList"].size(), kJsonListCap);
  EXPECT_EQ(j["alignedCollectives"].size(), kJsonListCap);
  std::string notes = j["notes"].dump();
  EXPECT_NE(notes.find("ncclCallList of rank 1: the first 10000 of 10005 NCCL calls"), std::string::npos) << notes;
  EXPECT_NE(notes.find("alignedCollectives: the first 10000 of 10005"), std::string::npos) << notes;
  EXPECT_EQ(a.ranks[1].lastCount, n);  // rank 1 came last every time, counted past the cap
}
