// One report across ranks: each rank's NCCL calls aligned with the same calls on the other ranks,
// the time each rank waited in each (the latest arrival minus its own), and the straggler — the
// rank that arrived last — with the line it ran last before it arrived.
//
// A communicator's handle differs per process, so calls are matched by what every member sees
// alike: (communicator number on the rank by first use, ranks in it, sequence number of the call
// on that communicator, collective, count). Communicators of one rank are not aligned (a run of
// one rank per process: nothing to wait for). Arrival is the API call's start: on one host all
// logs share CLOCK_MONOTONIC; across hosts the logs' CLOCK_REALTIME offsets place them (as well
// as NTP keeps the hosts together: the report says so).
//
// Input is RankView, made from a ProcessTimeline (rankView) or read from a rank summary
// (RankSummary.h), so that `report DIR` and the merge of summaries give the same numbers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/Communication.h"
#include "runtime/InternedString.h"
#include "runtime/SpilledVector.h"
#include "runtime/Timeline.h"

namespace sl::runtime {

// Plain bytes (its strings interned), so that a rank's calls can move to a temporary file.
struct RankCollective {
  InternedString kind;
  uint64_t count = 0, bytes = 0;
  uint32_t datatype = 0;
  int peer = -1, nranks = -1, commIndex = -1;
  uint64_t seq = 0;
  uint64_t arriveNs = 0;           // the call's start, CLOCK_MONOTONIC of the rank's host
  uint64_t gpuNs = 0, exposedNs = 0;
  InternedString path;             // the call's line (path "" = unknown)
  uint32_t line = 0;
  InternedString delayPath;        // the last user line this rank ran a CUDA call from before it
  uint32_t delayLine = 0;
  uint64_t delayGapNs = 0;         // from that call's end to this call's start
};

struct RankView {
  int rank = -1, localRank = -1, worldSize = -1;
  std::string host, launcher, logPath;
  std::string jobId;  // the launcher's job id (TORCHELASTIC_RUN_ID, SLURM_JOB_ID, ...); "" unknown
  uint64_t pid = 0;
  int64_t realtimeOffsetNs = 0;
  bool gpuTiming = false;
  uint64_t runNs = 0, computeNs = 0, commNs = 0, exposedNs = 0;
  size_t ncclCalls = 0;
  size_t omittedCollectives = 0;   // summaries keep the first kMaxSummaryCollectives
  std::vector<std::string> notes;
  // One per NCCL call: in memory up to a set size, then in a temporary file (read by value).
  SpilledVector<RankCollective> collectives;
};

RankView rankView(const ProcessTimeline& t, const CommSummary& comm);

// One rank's part in an aligned collective.
struct AlignedMember {
  uint64_t view = 0;    // rank view index
  uint64_t index = 0;   // its collective index (RankView::collectives)
  uint64_t waitNs = 0;  // latest arrival - its arrival
};

// Plain bytes: a long run aligns one per NCCL call, so they live in a SpilledVector, and their
// members, in rank view order, in RankAlignment::members from membersAt on.
struct AlignedCollective {
  RankCollective first;                 // as the earliest rank saw it (kind, count, ...)
  uint64_t membersAt = 0;
  uint64_t memberCount = 0;
  size_t straggler = 0;                 // rank view index of the last to arrive
  uint64_t spreadNs = 0;                // latest - earliest arrival
};

struct RankWaits {
  uint64_t waitedNs = 0;   // summed over its aligned collectives
  size_t lastCount = 0;    // collectives it arrived last to (with a spread)
  uint64_t causedNs = 0;   // summed spread of the collectives it arrived last to
};

struct RankAlignment {
  SpilledVector<AlignedCollective> collectives;  // by (communicator, sequence number)
  SpilledVector<AlignedMember> members;          // of every aligned collective, in turn
  std::vector<RankWaits> ranks;   // one per view
  size_t unaligned = 0;           // calls of communicators of 2+ ranks that matched no other rank
  bool realtimeClock = false;     // hosts differ: arrivals compared on CLOCK_REALTIME
  int straggler = -1;             // view index of the rank that cost the others most, -1 none
  std::vector<std::string> notes;
  std::vector<AlignedMember> membersOf(const AlignedCollective& c) const;
};

// Streams: each rank's calls of communicators of 2+ ranks sorted by (communicator, sequence) in
// a temporary file, then merged across ranks; what stays in memory is one collective's members.
RankAlignment alignRanks(const std::vector<RankView>& views);

}  // namespace sl::runtime
