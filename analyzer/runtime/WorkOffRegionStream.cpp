// SL903: work issued inside a side-stream region that ran on another stream.
//
// The recorder does not see `with torch.cuda.stream(s)` (it changes a thread-local, no CUDA call),
// but the work a source line queues *directly* shows which stream was current there: torch
// launches on the current stream. Work queued on the line's behalf by threads that run no user
// code (autograd's device threads: Timeline's attributedLoc) should land there too; when it lands
// elsewhere, the region did not move it. The classic case is backward() in a side-stream region:
// the gradient seed runs on the side stream, every backward kernel on its forward's stream.
#include <map>

#include "runtime/GpuCoverage.h"
#include "runtime/RuntimeRules.h"

namespace sl::runtime {

namespace {

struct LineWork {
  std::map<std::pair<uint32_t, uint32_t>, size_t> direct;      // (device, stream) -> ops
  std::map<std::pair<uint32_t, uint32_t>, size_t> attributed;  // (device, stream) -> ops
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> attributedNs;
};

struct Site {
  std::string path;
  uint32_t line = 0;
  std::string function, regionStream, otherStreams;
  size_t total = 0, misplaced = 0, processes = 0;
  uint64_t misplacedNs = 0;
  nlohmann::json byStream = nlohmann::json::object();
  Coverage timed;  // sampled timing: the counts are those of the timed windows
};

}  // namespace

std::vector<Finding> workOffRegionStream(const RunData& run) {
  std::map<std::pair<std::string, uint32_t>, Site> sites;
  for (const auto& t : run.timelines) {
    std::map<int, LineWork> lines;
    for (const auto& op : t.ops) {
      if (op.call < 0) continue;
      const HostCall& c = t.calls[op.call];
      std::pair<uint32_t, uint32_t> key{op.device, op.stream};
      if (c.attributedLoc >= 0) {
        auto& w = lines[c.attributedLoc];
        w.attributed[key]++;
        w.attributedNs[key] += op.endNs - op.startNs;
      } else if (c.loc >= 0) {
        lines[c.loc].direct[key]++;
      }
    }
    for (const auto& [loc, w] : lines) {
      // The region's stream: all of the line's own work went to one stream that is not the
      // legacy default stream.
      if (w.direct.size() != 1 || w.attributed.empty()) continue;
      auto [device, regionId] = w.direct.begin()->first;
      const StreamInfo* region = t.stream(device, regionId);
      if (!region || region->legacyDefault) continue;
      size_t misplaced = 0;
      uint64_t misplacedNs = 0;
      for (const auto& [key, n] : w.attributed)
        if (key != w.direct.begin()->first) { misplaced += n; misplacedNs += w.attributedNs.at(key); }
      if (!misplaced) continue;
      const SourceLoc& where = t.locations[loc];
      Site& s = sites[{where.path, where.line}];
      s.path = where.path;
      s.line = where.line;
      s.function = where.function;
      s.regionStream = region->label();
      s.processes++;
      s.timed.add(t);
      s.misplaced += misplaced;
      s.misplacedNs += misplacedNs;
      s.total += w.direct.begin()->second;
      s.byStream[region->label()] = s.byStream.value(region->label(), 0) + w.direct.begin()->second;
      std::string others;
      for (const auto& [key, n] : w.attributed) {
        s.total += n;
        const StreamInfo* si = t.stream(key.first, key.second);
        std::string label = si ? si->label() : "stream " + std::to_string(key.second);
        s.byStream[label] = s.byStream.value(label, 0) + n;
        if (key != w.direct.begin()->first) others += (others.empty() ? "" : ", ") + label;
      }
      s.otherStreams = others;
    }
  }

  std::vector<Finding> out;
  for (const auto& [key, s] : sites) {
    Finding f;
    f.ruleId = "SL903";
    f.path = s.path;
    f.loc = Loc{s.line, s.line ? 1u : 0u};
    f.message = "this line runs inside a region on " + s.regionStream + ", but " +
                std::to_string(s.misplaced) + " of the " + std::to_string(s.total) +
                " GPU operations it set off" + (s.timed.sampled() ? " " + s.timed.inWindows() : "") +
                " ran on " + s.otherStreams + " (" +
                humanTime(double(s.misplacedNs)) +
                " of GPU time), queued by threads that run no user code — autograd's backward "
                "threads run each backward op on the stream its forward op used, so the region "
                "moved only the gradient seed; put the forward on the side stream instead";
    f.properties = {{"regionStream", s.regionStream},
                    {"operations", s.total},
                    {"offRegionOperations", s.misplaced},
                    {"offRegionGpuMicros", double(s.misplacedNs) / 1e3},
                    {"operationsByStream", s.byStream},
                    {"processes", s.processes},
                    {"costMicros", double(s.misplacedNs) / 1e3}};
    if (!s.function.empty()) f.properties["function"] = s.function;
    s.timed.describe(f.properties);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace sl::runtime
