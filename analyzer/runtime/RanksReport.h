// The many-rank part of `streamlint report`: per rank compute, communication and exposed
// communication, its NCCL calls by line, and across ranks the aligned collectives with their
// waits and stragglers (RankAlignment.h). Text after the findings; JSON as run.ranks (and SARIF
// run.properties.ranks).
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "runtime/RankAlignment.h"

namespace sl::runtime {

// "float32", "bfloat16"... for ncclDataType_t; "type N" when unknown.
std::string ncclTypeName(uint32_t datatype);

void writeRanksText(std::ostream& os, const std::vector<RankView>& views, const RankAlignment& align);
// Lists that grow with a log's length (ncclCallList, alignedCollectives) stop at this many
// entries, saying so in "notes": an hour's run has millions of NCCL calls, and their JSON was
// most of the report's memory on long logs (the sums by line and the waits count them all).
inline constexpr size_t kJsonListCap = 10000;

// `callLists`: every NCCL call of every rank (ncclCallList) besides the calls summed by line
// (ncclCallsByLine); a merge of a thousand ranks' summaries leaves it out (hundreds of MB).
nlohmann::json ranksJson(const std::vector<RankView>& views, const RankAlignment& align, bool callLists);

}  // namespace sl::runtime
