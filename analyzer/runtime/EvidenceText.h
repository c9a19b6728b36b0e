// A finding's measured evidence (its properties, a static finding's `runtime` object) as
// sentences with units, for the HTML page's "measured" column (issue 32): "Blocked the host for
// 1.74 ms in 920 calls (longest 282.6 us).", not "blockedMicros: 1742.779 · calls: 920". Keys
// without a sentence of their own are said as "label: value" after the sentences; bookkeeping
// (ranking cost, function names, the static side's confidence) is left out.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sl::runtime {

std::vector<std::string> evidenceSentences(const nlohmann::json& properties);

}  // namespace sl::runtime
