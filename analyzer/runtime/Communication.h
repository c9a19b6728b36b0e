// Communication against compute on one rank (one process): which GPU work was NCCL's, how long
// the GPU communicated and computed, how much of the communication no compute kernel of the
// same device overlapped (exposed: the step waits for it), and the NCCL calls that set it off —
// collective, bytes, datatype, communicator, peer, stream, per-communicator sequence number and
// the user's line. Read by the per-rank report, the cross-rank alignment (RankAlignment.h),
// SL906 and the rank summaries (RankSummary.h).
//
// Communication is NCCL's kernels (by name: the recorder does not see NCCL's own launches, they
// are nested in the ncclAllReduce call) and everything else on the CUPTI streams they ran on;
// compute is every other kernel. Copies and sets on other streams are neither.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/InternedString.h"
#include "runtime/SpilledVector.h"
#include "runtime/Timeline.h"

namespace sl::runtime {

// Plain bytes (the kind interned), so that a log's NCCL calls can move to a temporary file.
struct CollectiveCall {
  int call = -1;            // index into ProcessTimeline::calls
  InternedString kind;      // "AllReduce", "Send", ... (the API name without "nccl")
  uint64_t count = 0;       // elements, as passed
  uint64_t bytes = 0;       // count * the datatype's size; 0 when the type is unknown
  uint32_t datatype = 0;    // ncclDataType_t
  int peer = -1;            // root or peer, -1 none
  int commRank = -1, nranks = -1;  // in the communicator
  uint64_t comm = 0;        // the ncclComm_t (differs per process)
  int commIndex = -1;       // communicators of this rank numbered by first use
  uint64_t stream = 0;      // the cudaStream_t passed
  uint64_t seq = 0;         // 0-based position among this communicator's calls
  int group = -1;           // calls between one ncclGroupStart/End share a group id
  int loc = -1;             // the call's report location (ProcessTimeline::reportLoc)
  // Its NCCL kernels on the GPU (0, 0: not timed, or no kernel recognised as its), and how much
  // of their time no compute kernel of the device overlapped.
  uint64_t gpuStartNs = 0, gpuEndNs = 0, gpuNs = 0, exposedNs = 0;
};

struct CommSummary {
  size_t ncclCalls = 0;            // collective and point-to-point calls recorded
  size_t commKernels = 0;          // GPU ops counted as communication
  uint64_t computeNs = 0;          // per device, union of compute kernels; summed over devices
  uint64_t commNs = 0;             // per device, union of communication ops; summed
  uint64_t exposedNs = 0;          // communication time with no compute kernel running
  std::vector<std::pair<uint32_t, uint32_t>> commStreams;  // (device, CUPTI stream id)
  SpilledVector<CollectiveCall> collectives;                // by enter time (read by value)
  // What could not be computed, one sentence each (no NCCL calls: gloo; no GPU timing...).
  std::vector<std::string> notes;
  double exposedShare() const { return commNs ? double(exposedNs) / double(commNs) : 0; }
  bool isCommStream(uint32_t device, uint32_t id) const;
};

CommSummary analyzeCommunication(const ProcessTimeline& t);

// True for NCCL's kernel names (ncclKernel_*, ncclDevKernel_*).
bool isNcclKernel(const std::string& name);

}  // namespace sl::runtime
