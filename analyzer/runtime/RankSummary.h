// Rank summaries: what the cross-rank report needs of each rank, small enough to gather from a
// thousand nodes. `streamlint report --summary OUT.json LOGDIR` writes one file for the logs of
// LOGDIR (the ranks of one node); `streamlint report A.json B.json ...` (or a directory of them)
// merges them in O(ranks): per rank its numbers and its first kMaxSummaryCollectives NCCL calls,
// then the same alignment as a report over the logs themselves. Format (versioned):
//   {"streamlintRankSummary": 1, "ranks": [{"rank": 0, ..., "strings": [...],
//     "collectiveFields": [...], "collectives": [[...], ...]}]}
// Docs: docs/ranks.md.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/RankAlignment.h"

namespace sl::runtime {

inline constexpr int kRankSummaryVersion = 1;
inline constexpr size_t kMaxSummaryCollectives = 4096;

nlohmann::json rankSummaryJson(const std::vector<RankView>& views);

// Reads summary files, or every *.json of a directory, in name order, appending their ranks.
// False with `error` naming the file and the reason (not JSON, not a summary, another version,
// a field of the wrong type).
bool readRankSummaries(const std::vector<std::string>& inputs, std::vector<RankView>& out, std::string& error);

// True when `input` is a summary file (*.json) or a directory holding *.json and no .slog.
bool isSummaryInput(const std::string& input);

}  // namespace sl::runtime
