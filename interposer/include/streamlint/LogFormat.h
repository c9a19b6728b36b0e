// The .slog format: written by libstreamlint_interposer.so, read by `streamlint report`
// (analyzer/runtime/LogReader). Shared by both sides so that they cannot drift.
//
// Layout: FileHeader, then chunks. A chunk is ChunkHeader + payload; the payload is whole records
// of one thread (the recorder keeps one ring per thread and never splits a record). Each chunk
// carries a checksum, so a reader stops at the first damaged chunk and still uses all before it.
// A clean exit ends the file with a Trailer record; its absence means the process died before
// flushing (SIGKILL, _exit, crash) and the log is truncated.
//
// All integers are little-endian x86-64 native; times are CLOCK_MONOTONIC nanoseconds unless a
// field says otherwise. Bump kVersion on any layout change; readers reject unknown versions.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sl::slog {

inline constexpr char kMagic[8] = {'S', 'L', 'O', 'G', '\r', '\n', '\x1a', '\n'};
inline constexpr uint32_t kVersion = 1;
inline constexpr uint32_t kChunkMagic = 0x4b434c53;  // "SLCK"

struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t headerBytes;   // sizeof(FileHeader); lets a reader skip fields added later
  uint64_t pid;
  uint64_t ppid;
  int32_t rank;           // RANK, -1 when unset
  int32_t localRank;      // LOCAL_RANK, -1 when unset
  uint64_t startRealtimeNs;  // CLOCK_REALTIME at start, to place logs of several hosts
  uint64_t startMonoNs;      // CLOCK_MONOTONIC at the same moment
  uint32_t pythonVersion;    // Py_Version (0x030C03F0 = 3.12.3), 0 when not a Python process
  uint32_t reserved;
  char host[64];
  char exe[256];             // /proc/self/exe, truncated
  // Appended later (headerBytes 432); a reader gives logs with a 384-byte header worldSize and
  // nodeRank -1, launcher Unknown. rank/localRank fall back to the launcher's own names (SLURM,
  // Open MPI, PMI) when RANK/LOCAL_RANK are unset.
  int32_t worldSize;         // WORLD_SIZE, SLURM_NTASKS, OMPI_COMM_WORLD_SIZE, PMI_SIZE; -1 unset
  int32_t nodeRank;          // GROUP_RANK (torchrun), SLURM_NODEID, OMPI_MCA_orte_ess_node_rank; -1
  uint32_t launcher;         // Launcher
  uint32_t reserved2;
  char jobId[32];            // TORCHELASTIC_RUN_ID, SLURM_JOB_ID, OMPI_MCA_ess_base_jobid; "" unset
};
static_assert(sizeof(FileHeader) == 432);
inline constexpr uint32_t kFirstHeaderBytes = 384;  // headerBytes of logs before worldSize

// Which launcher started the process, from the environment it set.
enum class Launcher : uint32_t { Unknown = 0, Torchrun = 1, Slurm = 2, OpenMpi = 3, Pmi = 4 };
inline const char* launcherName(uint32_t l) {
  switch (Launcher(l)) {
    case Launcher::Torchrun: return "torchrun";
    case Launcher::Slurm: return "slurm";
    case Launcher::OpenMpi: return "mpirun (Open MPI)";
    case Launcher::Pmi: return "mpirun (PMI)";
    default: return "unknown";
  }
}

struct ChunkHeader {
  uint32_t magic;      // kChunkMagic
  uint32_t bytes;      // payload bytes that follow
  uint32_t checksum;   // fnv1a32 over the payload
  uint32_t tid;        // kernel thread id of the thread that produced the records
};

inline uint32_t fnv1a32(const void* data, size_t n, uint32_t h = 2166136261u) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}

enum class RecType : uint16_t {
  Pad = 0,        // filler at the end of a ring; readers skip it
  Api = 1,        // one CUDA API call (ApiRecord)
  CodeDef = 2,    // a Python code object seen for the first time (CodeDefRecord)
  Module = 3,     // a loaded ELF module, for offline symbolization (ModuleRecord)
  Activity = 4,   // GPU time of a kernel/copy/set from CUPTI (ActivityRecord)
  String = 5,     // an interned string: kernel names (StringRecord)
  Message = 6,    // a one-line notice the recorder also printed (text follows)
  Trailer = 7,    // written last on a clean flush (TrailerRecord)
  Clock = 8,      // CUPTI timestamp <-> CLOCK_MONOTONIC calibration (ClockRecord)
  Thread = 9,     // a thread's name and the thread and Python line that started it (ThreadRecord)
  Window = 10,    // GPU timing switched on or off (WindowRecord)
  Access = 11,    // sanitize mode: the device words a launch passed (AccessRecord)
  Gap = 12,       // sanitize mode: records of this thread were lost (GapRecord)
  Block = 13,     // sanitize mode: a caching-allocator block event (BlockRecord)
  Collective = 14,// an NCCL call's communicator, rank and peer (CollectiveRecord)
};

struct RecHeader {
  RecType type;
  uint16_t bytes;  // whole record, header included; always a multiple of 8
};

// Everything the recorder hooks; the order is part of the format (append only).
#define SL_API_LIST(X)                                                               \
  X(cudaDeviceSynchronize, Sync) X(cudaStreamSynchronize, Sync)                      \
  X(cudaEventSynchronize, Sync) X(cudaStreamQuery, Query) X(cudaEventQuery, Query)   \
  X(cudaStreamWaitEvent, Wait) X(cudaEventRecord, Record)                            \
  X(cudaEventRecordWithFlags, Record) X(cudaEventCreate, EventLife)                  \
  X(cudaEventCreateWithFlags, EventLife) X(cudaEventDestroy, EventLife)              \
  X(cudaStreamCreate, StreamLife) X(cudaStreamCreateWithFlags, StreamLife)           \
  X(cudaStreamCreateWithPriority, StreamLife) X(cudaStreamDestroy, StreamLife)       \
  X(cudaMalloc, Alloc) X(cudaFree, Free) X(cudaMallocHost, Alloc)                    \
  X(cudaHostAlloc, Alloc) X(cudaFreeHost, Free) X(cudaMallocManaged, Alloc)          \
  X(cudaMallocAsync, AllocAsync) X(cudaFreeAsync, FreeAsync)                         \
  X(cudaMemcpy, Copy) X(cudaMemcpyAsync, CopyAsync) X(cudaMemcpy2D, Copy)            \
  X(cudaMemcpy2DAsync, CopyAsync) X(cudaMemcpyPeer, Copy)                            \
  X(cudaMemcpyPeerAsync, CopyAsync) X(cudaMemset, Set) X(cudaMemsetAsync, SetAsync)  \
  X(__cudaLaunchKernel, Launch) X(__cudaLaunchKernel_ptsz, Launch)                   \
  X(cudaLaunchKernel, Launch) X(cudaLaunchKernelExC, Launch)                         \
  X(cudaGraphLaunch, GraphLaunch)                                                    \
  X(cuLaunchKernel, Launch) X(cuLaunchKernelEx, Launch) X(cuCtxSynchronize, Sync)    \
  X(cuStreamSynchronize, Sync) X(cuEventSynchronize, Sync) X(cuMemAlloc, Alloc)      \
  X(cuMemFree, Free) X(cuMemcpyHtoD, Copy) X(cuMemcpyDtoH, Copy) X(cuMemcpyDtoD, Copy) \
  X(cuMemcpyAsync, CopyAsync) X(cuMemcpyHtoDAsync, CopyAsync)                        \
  X(cuMemcpyDtoHAsync, CopyAsync) X(cuStreamWaitEvent, Wait) X(cuEventRecord, Record) \
  X(cuMemAllocAsync, AllocAsync) X(cuMemFreeAsync, FreeAsync) X(cuGraphLaunch, GraphLaunch)  \
  X(ncclAllReduce, Collective) X(ncclBroadcast, Collective) X(ncclReduce, Collective)  \
  X(ncclAllGather, Collective) X(ncclReduceScatter, Collective)                        \
  X(ncclAlltoAll, Collective) X(ncclSend, Collective) X(ncclRecv, Collective)          \
  X(ncclGroupStart, CommGroup) X(ncclGroupEnd, CommGroup)

enum class ApiClass : uint8_t {
  Sync, Query, Wait, Record, EventLife, StreamLife, Alloc, Free, AllocAsync, FreeAsync,
  Copy, CopyAsync, Set, SetAsync, Launch, GraphLaunch,
  Collective,  // an NCCL collective or point-to-point call (CollectiveRecord follows)
  CommGroup,   // ncclGroupStart / ncclGroupEnd
};

enum class Api : uint16_t {
#define SL_API_ENUM(name, cls) name,
  SL_API_LIST(SL_API_ENUM)
#undef SL_API_ENUM
  Count
};

inline const char* apiName(Api a) {
  static constexpr const char* kNames[] = {
#define SL_API_NAME(name, cls) #name,
      SL_API_LIST(SL_API_NAME)
#undef SL_API_NAME
  };
  return static_cast<size_t>(a) < static_cast<size_t>(Api::Count) ? kNames[size_t(a)] : "?";
}
inline ApiClass apiClass(Api a) {
  static constexpr ApiClass kClasses[] = {
#define SL_API_CLASS(name, cls) ApiClass::cls,
      SL_API_LIST(SL_API_CLASS)
#undef SL_API_CLASS
  };
  return static_cast<size_t>(a) < static_cast<size_t>(Api::Count) ? kClasses[size_t(a)]
                                                                    : ApiClass::Query;
}

enum ApiFlags : uint8_t {
  kDriverLevel = 1,    // seen through a cuGetProcAddress/dlsym pointer, not a cudart symbol
  kHasPython = 2,      // pyCode/pyOffset are set
  kCorrelated = 4,     // `corr` was pushed to CUPTI as the external correlation id (no longer set)
  kScannedFrames = 8,  // frames[0] is a library's call; the rest are return addresses into the
                       // user's code found on the stack (some may be stale: the report takes the
                       // first with a source line, else frames[0])
};

// One API call. Fields a0..a2 by class (unused ones are 0):
//   Copy*:   a0 dst, a1 src, a2 bytes; `kind` = cudaMemcpyKind (driver copies: the implied kind)
//   Set*:    a0 dst, a1 value, a2 bytes
//   Alloc*:  a0 the pointer returned, a2 bytes; Free*: a0 the pointer
//   Launch:  a0 kernel handle (cudaKernel_t/CUfunction/host stub), a1 grid x|y<<32 (z in kind),
//            a2 block x|y<<16|z<<32|shared bytes<<48 (capped), nameId the kernel's String id
//   Record/Wait/Sync on events: a0 the event; Wait: a1 flags
//   StreamLife/EventLife: a0 the created/destroyed handle
//   Collective: a0 sendbuff (0 for ncclRecv), a1 recvbuff (0 for ncclSend), a2 the count as
//            passed (elements; ncclAllGather: per rank sent, ncclReduceScatter: per rank
//            received, ncclAlltoAll: per peer), kind = ncclDataType_t; a CollectiveRecord follows
struct ApiRecord {
  RecHeader h;
  Api api;
  uint8_t flags;       // ApiFlags
  uint8_t nframes;     // native return addresses that follow the fixed part
  uint64_t tEnter;
  uint64_t tExit;
  int32_t ret;         // cudaError_t / CUresult as returned, never changed
  uint32_t pyCode;     // CodeDef id of the user's frame (0 = none)
  uint32_t pyOffset;   // byte offset of the current instruction in that code object
  uint32_t kind;       // copy kind, or grid z for launches
  uint64_t stream;
  uint64_t corr;       // per-process sequence number; the CUPTI external id when kCorrelated
  uint64_t a0, a1, a2;
  uint32_t nameId;     // String id of the kernel name, 0 = unknown
  uint32_t reserved;
  // uint64_t frames[nframes];
};
static_assert(sizeof(ApiRecord) == 88);
inline constexpr int kMaxFrames = 8;

// A code object, with what the reader needs to turn (code, offset) into a line offline:
// CPython's location table (3.11+ format) and co_firstlineno. Text: filename then qualname.
struct CodeDefRecord {
  RecHeader h;
  uint32_t codeId;
  uint32_t firstLine;
  uint16_t fileLen;
  uint16_t nameLen;
  uint32_t lineTableLen;
  uint32_t flags;      // 1 = file is inside a skipped package (torch)
  // char file[fileLen]; char name[nameLen]; uint8_t lineTable[lineTableLen]; padding to 8
};

struct ModuleRecord {
  RecHeader h;
  uint32_t pathLen;
  uint64_t base;       // dlpi_addr: subtract from an address to get the ELF virtual address
  uint64_t lo, hi;     // the executable segment's address range
  // char path[pathLen]; padding
};

enum class ActivityKind : uint8_t { Kernel = 1, Memcpy = 2, Memset = 3 };

struct ActivityRecord {
  RecHeader h;
  ActivityKind kind;
  uint8_t copyKind;    // CUpti_ActivityMemcpyKind for copies
  // A copy's source and destination memory (CUpti_ActivityMemoryKind: 1 pageable, 2 pinned,
  // 3 device, ...); 0 unknown (recorders before 2026-12-02 wrote 0 here).
  uint8_t srcKind, dstKind;
  uint64_t start, end; // CUPTI timestamps (ns); see ClockRecord
  uint64_t externalId; // ApiRecord::corr of the launching call, 0 when unknown
  uint64_t bytes;
  uint32_t correlationId;
  uint32_t streamId;
  uint32_t deviceId;
  uint32_t nameId;     // String id (kernels)
};

struct StringRecord {
  RecHeader h;
  uint32_t id;
  uint32_t len;
  // char text[len]; padding
};

struct ClockRecord {
  RecHeader h;
  uint32_t reserved;
  uint64_t cuptiNs;
  uint64_t monoNs;
};

struct TrailerRecord {
  RecHeader h;
  uint32_t cappedChunks;   // chunks not written because the log reached SL_MAX_LOG_MB (their
                           // records are counted in `dropped`); 0 in logs of older recorders
  uint64_t records;        // records written
  uint64_t dropped;        // records lost because a ring was full or the memory cap was reached
  uint64_t droppedThreads; // threads that got no ring because of the cap
  uint64_t peakBytes;      // peak ring memory held
  uint64_t capBytes;       // the cap in force
  uint64_t activityDropped;// CUPTI records CUPTI itself reported dropped
  uint32_t cuptiState;     // CuptiState
  uint32_t gpuTiming;      // GpuTiming
  // Fields added with the write-failure accounting (issue 33); a reader takes a shorter trailer
  // (older recorders) with these as 0. Records and bytes the log could not take: `capped*` past
  // SL_MAX_LOG_MB, `unwritten*` after a write failed (writeErrno: the first failure's errno, e.g.
  // ENOSPC; EBADF when the program closed the log's descriptor and it could not be reopened).
  uint64_t cappedBytes;
  uint64_t cappedRecords;     // CUDA call records (also counted in `dropped`)
  uint64_t unwrittenRecords;  // CUDA call records (also counted in `dropped`)
  uint64_t unwrittenBytes;
  uint32_t unwrittenChunks;
  uint32_t writeErrno;
};
inline constexpr size_t kTrailerV1Bytes = offsetof(TrailerRecord, cappedBytes);

// How CUPTI was run. Sampled: on in windows (WindowRecord) so that its per-kernel cost is paid
// a few percent of the time; calls outside the windows have no GPU records.
enum class GpuTiming : uint32_t {
  Unstated = 0,    // logs written before windows existed: on from the first CUDA call
  Continuous = 1,  // on from the first CUDA call to exit (SL_GPU_TIMING=always)
  Sampled = 2,     // on in windows (SL_GPU_TIMING=sampled, the default)
  Off = 3,         // SL_GPU_TIMING=off
};

enum class WindowReason : uint8_t {
  Schedule = 0,  // the sampling schedule
  Program = 1,   // the program called streamlint_recording()
  Yield = 2,     // a profiler took CUPTI
  Exit = 3,      // the process is ending
};

// GPU timing switched on (`on` = 1) or off. A call's GPU work is in the log when the call began
// after an `on` record's tBefore and before the next `off` record's tAfter; a call begun during
// the switch itself (between tBefore and tAfter, on another thread) may or may not be timed.
// Logs that have no Window records were timed from the first CUDA call until exit or yield.
struct WindowRecord {
  RecHeader h;
  uint8_t on;
  WindowReason why;
  uint16_t reserved;
  uint32_t reserved2;
  uint64_t tBefore;  // CLOCK_MONOTONIC just before the switch
  uint64_t tAfter;   // just after it returned
};
static_assert(sizeof(WindowRecord) == 32);

enum class CuptiState : uint32_t {
  Off = 0,        // not attempted (SL_CUPTI=0) or no CUDA work
  Active = 1,     // recording kernels/copies/sets until exit
  Unavailable = 2,// libcupti not found or refused (message recorded)
  Yielded = 3,    // a user's profiler took CUPTI; GPU timing stopped then
};

// ---- sanitize mode (SL_SANITIZE=1, `streamlint run --sanitize`; SL904) ----------------------
// A launch's footprint: the 8-byte words of its parameters (kernelParams, or the `extra` buffer)
// that fell inside the span of the device allocations seen so far. Written by the launching
// thread right after the launch's ApiRecord, with the same `corr`. The report resolves the words
// against the live allocations (Alloc records) or caching-allocator blocks (BlockRecord).
enum AccessFlags : uint8_t {
  kAccessExtra = 1,        // the words come from the `extra` argument buffer
  kAccessNoParamInfo = 2,  // the driver gave no parameter layout: the footprint is unknown
  kAccessTruncated = 4,    // more words pointed into device memory than a record holds
};
inline constexpr int kMaxAccessWords = 64;
struct AccessRecord {
  RecHeader h;
  uint16_t n;        // words that follow
  uint8_t flags;     // AccessFlags
  uint8_t reserved;
  uint64_t corr;     // ApiRecord::corr of the launch
  // uint64_t words[n];
};
static_assert(sizeof(AccessRecord) == 16);

// Records of one thread were dropped (ring full) between fromNs and toNs (CLOCK_MONOTONIC): an
// ordering edge may be missing there, so the report judges no race that involves that window.
struct GapRecord {
  RecHeader h;
  uint32_t reserved;
  uint64_t dropped;  // records lost on this thread so far (cumulative)
  uint64_t fromNs, toNs;
};
static_assert(sizeof(GapRecord) == 32);

// One entry of the caching allocator's trace (torch.cuda.memory._record_memory_history without
// stacks), handed over by the Python side at exit. `realtimeNs` is CLOCK_REALTIME (the allocator's
// clock, microsecond resolution); FileHeader's (startRealtimeNs, startMonoNs) place it.
enum class BlockAction : uint8_t {
  Alloc = 1, FreeRequested = 2, FreeCompleted = 3, SegmentAlloc = 4, SegmentFree = 5,
  Snapshot = 6,   // the oldest entry the allocator still held: blocks before it are unknown
};
struct BlockRecord {
  RecHeader h;
  BlockAction action;
  uint8_t reserved;
  uint16_t device;
  uint64_t addr, size, stream;
  uint64_t realtimeNs;
};
static_assert(sizeof(BlockRecord) == 40);

// A thread's first record once it has a ring (its chunks carry its tid): its name at that moment
// (autograd's device threads are "pt_autograd_N" by their first CUDA call) and, for threads
// started while the recorder ran, the thread that started it and that thread's user Python line
// then (`for batch in loader:` for a DataLoader's pin-memory thread). Older logs have none.
struct ThreadRecord {
  RecHeader h;
  uint32_t parentTid;  // 0 = not known (started before recording, or by a thread without a ring)
  uint32_t pyCode;     // CodeDef id of the starting thread's user frame (0 = none)
  uint32_t pyOffset;   // byte offset of the instruction in it
  uint32_t nameLen;    // the thread's name follows (at most 15 bytes); padding to 8
};
static_assert(sizeof(ThreadRecord) == 20);

// Written right after a Collective ApiRecord (same corr), in every mode: what the ApiRecord has no
// room for. Rank and size come from the communicator (ncclCommUserRank / ncclCommCount).
struct CollectiveRecord {
  RecHeader h;
  uint8_t datatype;  // ncclDataType_t
  uint8_t redOp;     // ncclRedOp_t (built-in ops; 0xff: none or a custom op)
  uint16_t reserved;
  int32_t peer;      // root (ncclBroadcast, ncclReduce), peer (ncclSend, ncclRecv), else -1
  int32_t rank;      // this process's rank in `comm`, -1 unknown
  int32_t nranks;    // ranks in `comm`, -1 unknown
  uint32_t reserved2;
  uint64_t corr;     // ApiRecord::corr of the call
  uint64_t comm;     // the ncclComm_t
};
static_assert(sizeof(CollectiveRecord) == 40);

// Bytes per element of ncclDataType_t (NCCL 2.x numbering), 0 when unknown.
inline uint32_t ncclTypeBytes(uint32_t t) {
  constexpr uint8_t kBytes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
  return t < sizeof kBytes ? kBytes[t] : 0;
}

inline constexpr size_t align8(size_t n) { return (n + 7) & ~size_t(7); }

}  // namespace sl::slog
