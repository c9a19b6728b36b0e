#include "runtime/EvidenceText.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "runtime/RuntimeRules.h"

namespace sl::runtime {

namespace {

std::string us(double micros) { return humanTime(micros * 1e3); }
std::string count(uint64_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

// "776 on default stream 7, 13 on backward_stream (stream 14)".
std::string byStream(const nlohmann::json& m) {
  std::vector<std::pair<uint64_t, std::string>> v;
  for (const auto& [k, n] : m.items()) if (n.is_number()) v.push_back({n.get<uint64_t>(), k});
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string s;
  for (const auto& [n, k] : v) s += (s.empty() ? "" : ", ") + std::to_string(n) + " on " + k;
  return s;
}

// API counts as work: launches summed ("776 kernel launches"), then the other calls, largest first.
std::string apiSummary(const nlohmann::json& apis) {
  uint64_t launches = 0;
  std::vector<std::pair<uint64_t, std::string>> rest;
  for (const auto& [api, n] : apis.items()) {
    if (!n.is_number()) continue;
    if (api.find("Launch") != std::string::npos) launches += n.get<uint64_t>();
    else rest.push_back({n.get<uint64_t>(), api});
  }
  std::sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string s = launches ? count(launches, "kernel launch", "kernel launches") : "";
  for (size_t i = 0; i < rest.size() && i < 4; ++i)
    s += (s.empty() ? "" : ", ") + std::to_string(rest[i].first) + " " + rest[i].second;
  if (rest.size() > 4) s += " and " + std::to_string(rest.size() - 4) + " other APIs";
  return s;
}

std::string label(const std::string& key) {
  std::string k = key, out;
  for (const char* unit : {"Micros", "Bytes"})
    if (size_t at = k.find(unit); at != std::string::npos && at > 0) k.erase(at, std::string(unit).size());
  for (char c : k) {
    if (std::isupper(static_cast<unsigned char>(c))) { out += ' '; out += char(std::tolower(c)); }
    else out += c;
  }
  return out;
}

std::string valueText(const std::string& key, const nlohmann::json& v) {
  if (v.is_number()) {
    double x = v.get<double>();
    if (key.ends_with("Micros")) return us(x);
    if (key.find("Bytes") != std::string::npos || key == "bytes") return humanBytes(uint64_t(x));
    if (key.ends_with("Share")) return percentText(x);
  }
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array() || v.is_object()) {
    std::string s;
    for (const auto& [k, item] : v.items())
      s += (s.empty() ? "" : ", ") + (v.is_object() ? k + " " : "") + valueText(k, item);
    return s;
  }
  return v.dump();
}

void say(const nlohmann::json& p, std::vector<std::string>& out, std::set<std::string>& used) {
  auto has = [&](const char* k) { return p.contains(k) && !p[k].is_null(); };
  auto num = [&](const char* k) { used.insert(k); return p.value(k, 0.0); };
  auto str = [&](const char* k) { used.insert(k); return p.value(k, std::string()); };
  // Bookkeeping: the ranking key repeats a time said below; the rest is for machines.
  for (const char* k : {"costMicros", "function", "confidence", "evidence", "kind", "nativeAddress", "sites", "pid"})
    used.insert(k);

  if (has("blockedMicros") && has("api")) {  // one API's calls at a site (SL901)
    std::string s = "`" + str("api") + "` blocked the host for " + us(num("blockedMicros"));
    if (has("calls")) s += " in " + count(uint64_t(num("calls")), "call", "calls");
    if (has("maxBlockedMicros") && p.value("calls", 0) > 1) s += " (longest " + us(num("maxBlockedMicros")) + ")";
    out.push_back(s + ".");
  } else if (has("blockedMicros")) {  // a line's calls of every API (a paired static finding)
    std::string s = has("calls") ? "Its " + count(uint64_t(num("calls")), "CUDA call", "CUDA calls") + " blocked the host for "
                                 : "Blocked the host for ";
    out.push_back(s + us(num("blockedMicros")) + (has("calls") ? " in total." : "."));
  } else if (has("calls")) {
    out.push_back(count(uint64_t(num("calls")), "CUDA call", "CUDA calls") + " from this line.");
  }
  if (has("phase")) {
    bool once = str("phase") == "set-up";
    out.push_back(once ? "One-time set-up: paid once, not every step." : "Paid every step: its calls recur through the run.");
  }
  if (has("folded")) out.push_back(count(uint64_t(num("folded")), "set-up site", "set-up sites") + ", each listed below the message.");
  if (p.value("insideLibrary", false)) out.push_back("Inside library code, not the program's own line.");
  used.insert("insideLibrary");
  if (has("apis") && p["apis"].is_object()) { used.insert("apis"); if (auto s = apiSummary(p["apis"]); !s.empty()) out.push_back("Calls: " + s + "."); }
  if (has("operations") && has("offRegionOperations")) {
    std::string s = std::to_string(uint64_t(num("offRegionOperations"))) + " of its " +
                    count(uint64_t(num("operations")), "GPU operation", "GPU operations");
    if (has("offRegionGpuMicros")) s += " (" + us(num("offRegionGpuMicros")) + " of GPU time)";
    s += " ran off the region's stream";
    if (has("regionStream")) s += ", " + str("regionStream");
    out.push_back(s + ".");
  }
  if (has("gpuMicros")) out.push_back("Its GPU work ran for " + us(num("gpuMicros")) + ".");
  if (has("operationsByStream") && p["operationsByStream"].is_object()) {
    used.insert("operationsByStream");
    out.push_back("GPU operations by stream: " + byStream(p["operationsByStream"]) + ".");
  }
  if (has("kernelsPerStream") && p["kernelsPerStream"].is_object()) {
    used.insert("kernelsPerStream");
    out.push_back("Kernels by stream: " + byStream(p["kernelsPerStream"]) + ".");
  }
  if (has("regionStreamBusyMicros")) {
    std::string s = "The region's stream" + (has("regionStream") ? " " + str("regionStream") : std::string()) +
                    " was busy " + us(num("regionStreamBusyMicros"));
    if (has("regionStreamOverlappedMicros")) s += ", " + us(num("regionStreamOverlappedMicros")) + " of it alongside other streams";
    out.push_back(s + ".");
  }
  if (has("busyMicros")) {
    std::string s = "Busy " + us(num("busyMicros"));
    if (has("overlappedMicros")) s += ", " + us(num("overlappedMicros")) + " of it alongside other streams";
    if (has("overlapShare")) s += " (" + percentText(num("overlapShare")) + ")";
    out.push_back(s + ".");
  }
  if (has("allocatedBytes")) {
    std::string s = "Allocated " + humanBytes(uint64_t(num("allocatedBytes")));
    if (has("allocations")) s += " in " + count(uint64_t(num("allocations")), "device allocation", "device allocations");
    if (has("allocatedBytesBefore")) s += "; " + humanBytes(uint64_t(num("allocatedBytesBefore"))) + " had been allocated before";
    out.push_back(s + ".");
  }
  if (has("drainMicros")) out.push_back("The GPU ran on for " + us(num("drainMicros")) + " after the host stopped queueing.");
  if (has("gpuTiming") && p["gpuTiming"].is_object()) {
    used.insert("gpuTiming");
    const auto& g = p["gpuTiming"];
    if (g.contains("timedMicros") && g.contains("runMicros"))
      out.push_back("GPU timing " + g.value("mode", std::string("sampled")) + ": " + us(g.value("timedMicros", 0.0)) +
                    " of the run's " + us(g.value("runMicros", 0.0)) + " were timed.");
  }
  if (has("gpuTimedCalls"))
    out.push_back(std::to_string(uint64_t(num("gpuTimedCalls"))) + " of its calls fell in GPU-timed windows (their GPU work is what was timed).");
  if (has("processes") && num("processes") > 1) out.push_back("In " + std::to_string(uint64_t(num("processes"))) + " processes.");
  used.insert("processes");
  if (has("threads") && num("threads") > 1) out.push_back("On " + std::to_string(uint64_t(num("threads"))) + " threads.");
  used.insert("threads");
  if (has("ranks")) { used.insert("ranks"); out.push_back("On rank" + std::string(p["ranks"].size() == 1 ? " " : "s ") + valueText("ranks", p["ranks"]) + "."); }
  if (has("attributedThreads")) {
    used.insert("attributedThreads"); used.insert("attributedFrom"); used.insert("attributedBy");
    out.push_back("Queued for this line by " + valueText("", p["attributedThreads"]) + " (placed by " +
                  p.value("attributedBy", std::string("call order")) + ").");
  }
  if (has("confirmedBy") && p["confirmedBy"].is_object()) {
    used.insert("confirmedBy");
    out.push_back("Confirmed at runtime by " + p["confirmedBy"].value("rule", std::string("the run")) + ".");
  }
  if (has("status") && str("status") != "measured" && str("status") != "confirmed") out.push_back("Run: " + str("status") + ".");
  if (has("measuredBy")) { used.insert("measuredBy"); out.push_back("Measured by " + valueText("", p["measuredBy"]) + "."); }
}

}  // namespace

std::vector<std::string> evidenceSentences(const nlohmann::json& properties) {
  std::vector<std::string> out;
  if (!properties.is_object()) return out;
  // A static finding's evidence is its `runtime` object; its own keys are the static side's.
  const nlohmann::json& p = properties.contains("runtime") && properties["runtime"].is_object() ? properties["runtime"] : properties;
  std::set<std::string> used = {"runtime"};
  say(p, out, used);
  for (const auto& [k, v] : p.items())
    if (!used.count(k) && !(v.is_object() && v.empty())) out.push_back(label(k) + ": " + valueText(k, v) + ".");
  return out;
}

}  // namespace sl::runtime
