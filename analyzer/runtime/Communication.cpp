#include "runtime/Communication.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "runtime/Overlap.h"

namespace sl::runtime {

bool isNcclKernel(const std::string& name) {
  return name.rfind("ncclKernel", 0) == 0 || name.rfind("ncclDevKernel", 0) == 0;
}

bool CommSummary::isCommStream(uint32_t device, uint32_t id) const {
  return std::find(commStreams.begin(), commStreams.end(), std::make_pair(device, id)) != commStreams.end();
}

namespace {

// The NCCL calls in call order, numbered per communicator and grouped by ncclGroupStart/End.
SpilledVector<CollectiveCall> collectiveCalls(const ProcessTimeline& t) {
  SpilledVector<CollectiveCall> out;
  std::unordered_map<uint32_t, std::pair<int, int>> groupOf;  // tid -> (depth, group id)
  std::unordered_map<uint64_t, uint64_t> nextSeq;
  std::unordered_map<uint64_t, int> commIndex;
  int groups = 0;
  for (size_t i = 0; i < t.calls.size(); ++i) {
    const HostCall& h = t.calls[i];
    slog::ApiClass cls = slog::apiClass(h.api);
    auto& [depth, group] = groupOf[h.tid];
    if (cls == slog::ApiClass::CommGroup) {
      if (h.api == slog::Api::ncclGroupStart && depth++ == 0) group = groups++;
      if (h.api == slog::Api::ncclGroupEnd && depth > 0) --depth;
      continue;
    }
    if (cls != slog::ApiClass::Collective) continue;
    CollectiveCall c;
    c.call = int(i);
    c.kind = std::string(slog::apiName(h.api)).substr(4);  // "ncclAllReduce" -> "AllReduce"
    c.count = h.a2;
    c.datatype = h.kind;
    c.bytes = h.a2 * slog::ncclTypeBytes(h.kind);
    c.stream = h.stream;
    c.loc = t.reportLoc(h);
    c.group = depth > 0 ? group : groups++;
    if (auto r = t.collectives.find(h.corr)) {
      c.peer = r->peer;
      c.commRank = r->rank;
      c.nranks = r->nranks;
      c.comm = r->comm;
    }
    c.seq = nextSeq[c.comm]++;
    c.commIndex = commIndex.emplace(c.comm, int(commIndex.size())).first->second;
    out.push_back(c);
  }
  return out;
}

// The collective a kernel name says it runs ("AllReduce"; "SendRecv" runs Send and Recv), or ""
// when the name does not say (ncclDevKernel_Generic).
bool kindMatches(const std::string& kernel, const std::string& kind) {
  static const char* kKinds[] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "AlltoAll", "SendRecv", "Reduce"};
  for (const char* k : kKinds)
    if (kernel.find(k) != std::string::npos) {
      if (std::string(k) == "SendRecv") return kind == "Send" || kind == "Recv" || kind == "AlltoAll";
      return kind == k;
    }
  return true;
}

// Pairs each NCCL kernel with the NCCL call that queued it. NCCL's own launches are not recorded
// (they are nested in the NCCL call), so this goes by order: a communicator's kernels run in the
// order of its calls; each kernel takes the earliest unpaired timed call begun before it started,
// of a matching kind, whose stream is the one earlier kernels of that CUPTI stream came from. A
// kernel of a group (ncclGroupStart/End) serves every call of the group.
void pairKernels(const ProcessTimeline& t, const SpilledVector<uint64_t>& ncclOps, CommSummary& s,
                 const std::vector<Intervals>& computeOf, const std::map<uint32_t, size_t>& deviceIndex) {
  constexpr uint64_t kClockSlackNs = 50000;
  constexpr size_t kLookAhead = 64;
  SpilledVector<uint8_t> paired;  // one byte per NCCL call: past the threshold, in a file too
  paired.resize(s.collectives.size());
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> handleOf;  // CUPTI stream -> cudaStream_t
  size_t first = 0;
  for (size_t opIndex : ncclOps) {
    const GpuOp& op = t.ops[opIndex];
    while (first < paired.size() && paired[first]) ++first;
    auto bound = handleOf.find({op.device, op.stream});
    for (size_t j = first, seen = 0; j < s.collectives.size() && seen < kLookAhead; ++j) {
      if (paired[j]) continue;
      ++seen;
      const CollectiveCall c = s.collectives[j];
      const HostCall& h = t.calls[c.call];
      if (h.enterNs > op.startNs + kClockSlackNs) break;
      if (!h.gpuTimed || !kindMatches(op.name, c.kind)) continue;
      if (bound != handleOf.end() && bound->second != c.stream) continue;
      handleOf[{op.device, op.stream}] = c.stream;
      const Intervals& compute = computeOf[deviceIndex.at(op.device)];
      uint64_t len = op.endNs - op.startNs;
      uint64_t exposed = len - coveredLength(op.startNs, op.endNs, compute);
      for (size_t k = j; k < s.collectives.size() && s.collectives[k].group == c.group; ++k) {
        paired.set(k, 1);
        s.collectives.update(k, [&](CollectiveCall& g) {
          g.gpuStartNs = g.gpuStartNs ? std::min(g.gpuStartNs, op.startNs) : op.startNs;
          g.gpuEndNs = std::max(g.gpuEndNs, op.endNs);
          g.gpuNs += len;
          g.exposedNs += exposed;
        });
      }
      break;
    }
  }
}

}  // namespace

CommSummary analyzeCommunication(const ProcessTimeline& t) {
  CommSummary s;
  s.collectives = collectiveCalls(t);
  s.ncclCalls = s.collectives.size();

  std::set<std::pair<uint32_t, uint32_t>> commStreams;
  SpilledVector<uint64_t> ncclOps;  // indexes into t.ops
  for (size_t i = 0; i < t.ops.size(); ++i)
    if (GpuOp op = t.ops[i]; op.kind == slog::ActivityKind::Kernel && isNcclKernel(op.name)) {
      commStreams.insert({op.device, op.stream});
      ncclOps.push_back(i);
    }
  s.commStreams.assign(commStreams.begin(), commStreams.end());

  std::map<uint32_t, size_t> deviceIndex;
  for (const auto& op : t.ops) deviceIndex.emplace(op.device, deviceIndex.size());
  std::vector<Intervals> compute(deviceIndex.size()), comm(deviceIndex.size());
  for (const auto& op : t.ops) {
    size_t d = deviceIndex[op.device];
    if (commStreams.count({op.device, op.stream}) || (op.kind == slog::ActivityKind::Kernel && isNcclKernel(op.name))) {
      comm[d].push_back(Interval{op.startNs, op.endNs});
      s.commKernels++;
    } else if (op.kind == slog::ActivityKind::Kernel) {
      compute[d].push_back(Interval{op.startNs, op.endNs});
    }
  }
  for (size_t d = 0; d < compute.size(); ++d) {
    compute[d] = unite(std::move(compute[d]));
    comm[d] = unite(std::move(comm[d]));
    s.computeNs += length(compute[d]);
    s.commNs += length(comm[d]);
    s.exposedNs += length(comm[d]) - intersectionLength(comm[d], compute[d]);
  }
  pairKernels(t, ncclOps, s, compute, deviceIndex);

  if (!s.ncclCalls)
    s.notes.push_back("no NCCL calls recorded (a gloo or MPI backend, or no communication): "
                      "communication on the GPU and the waits in collectives are not measured");
  if (!t.gpuTiming)
    s.notes.push_back("no GPU timing in this log: compute, communication and exposed time are not measured");
  else if (s.ncclCalls && ncclOps.empty())
    s.notes.push_back(std::to_string(s.ncclCalls) + " NCCL calls recorded but no NCCL kernel in the GPU "
                      "timing (untimed windows, or a communicator of one rank that copies instead): "
                      "communication time is not measured");
  return s;
}

}  // namespace sl::runtime
