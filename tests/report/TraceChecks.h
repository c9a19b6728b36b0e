// Structural checks of a Chrome trace-event file, shared by the synthetic and the fixture tests:
// what ui.perfetto.dev needs to show every track named and every launch arrow attached.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace sl::runtime::test {

struct TraceIndex {
  std::map<int, std::string> processNames;
  std::map<std::pair<int, uint64_t>, std::string> threadNames;
  std::vector<nlohmann::json> slices;  // "X" events
  std::vector<nlohmann::json> instants;  // "i" events: findings
  size_t flows = 0;
};

inline TraceIndex checkTrace(const nlohmann::json& trace) {
  TraceIndex ix;
  EXPECT_TRUE(trace.is_object());
  EXPECT_TRUE(trace.contains("traceEvents") && trace["traceEvents"].is_array());
  if (!trace.contains("traceEvents")) return ix;
  // slices by track, for checking that flow ends land inside one
  std::map<std::pair<int, uint64_t>, std::vector<std::pair<double, double>>> byTrack;
  std::map<uint64_t, std::vector<nlohmann::json>> flows;
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e.at("ph");
    const int pid = e.at("pid");
    const uint64_t tid = e.at("tid");
    if (ph == "M") {
      if (e["name"] == "process_name") ix.processNames[pid] = e["args"]["name"];
      if (e["name"] == "thread_name") ix.threadNames[{pid, tid}] = e["args"]["name"];
    } else if (ph == "X") {
      EXPECT_TRUE(e.at("ts").is_number()) << e.dump();
      EXPECT_TRUE(e.at("dur").is_number()) << e.dump();
      EXPECT_GE(e["ts"].get<double>(), 0) << e.dump();
      EXPECT_GE(e["dur"].get<double>(), 0) << e.dump();
      EXPECT_TRUE(e.at("name").is_string());
      byTrack[{pid, tid}].push_back({e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
      ix.slices.push_back(e);
    } else if (ph == "i") {
      EXPECT_EQ(e.value("s", ""), "t") << e.dump();  // on a thread's track
      EXPECT_TRUE(e.at("ts").is_number() && e.at("name").is_string()) << e.dump();
      ix.instants.push_back(e);
    } else if (ph == "s" || ph == "f") {
      EXPECT_EQ(e.value("bp", ""), "e") << e.dump();
      flows[e.at("id").get<uint64_t>()].push_back(e);
    } else {
      ADD_FAILURE() << "unexpected event " << e.dump();
    }
  }
  // Per track: slices by start with the running maximum of their ends, so "is ts inside any
  // slice" is one binary search.
  for (auto& [track, v] : byTrack) {
    std::sort(v.begin(), v.end());
    for (size_t i = 1; i < v.size(); ++i) v[i].second = std::max(v[i].second, v[i - 1].second);
  }
  for (const auto& [track, v] : byTrack) {
    EXPECT_TRUE(ix.processNames.count(track.first)) << "pid " << track.first << " has no name";
    EXPECT_TRUE(ix.threadNames.count(track)) << "pid " << track.first << " tid " << track.second << " has no name";
  }
  for (const auto& [id, ends] : flows) {
    EXPECT_EQ(ends.size(), 2u) << "flow " << id;
    if (ends.size() != 2) continue;
    EXPECT_EQ(ends[0]["ph"], "s") << "flow " << id;
    EXPECT_EQ(ends[1]["ph"], "f") << "flow " << id;
    for (const auto& e : ends) {
      const auto& slices = byTrack[{e["pid"].get<int>(), e["tid"].get<uint64_t>()}];
      double ts = e["ts"];
      auto it = std::upper_bound(slices.begin(), slices.end(), std::make_pair(ts, 1e300));
      bool inside = it != slices.begin() && std::prev(it)->second >= ts;
      EXPECT_TRUE(inside) << "flow end outside any slice: " << e.dump();
    }
    ix.flows++;
  }
  return ix;
}

}  // namespace sl::runtime::test
