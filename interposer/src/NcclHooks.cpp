// NCCL entry points, exported from the preload library (torch's libtorch_cuda.so binds
// libnccl.so.2's symbols by name, so ours come first; a dlsym on a libnccl handle is handed ours
// too, DriverHooks.cpp). Each call is one ApiRecord (buffers, count, datatype, stream) and one
// CollectiveRecord (communicator, rank, size, root or peer, reduction): what SL904 needs (the
// receive buffer is written, the send buffer read, on `stream`) and what a many-rank view needs.
#include <dlfcn.h>
#include <nccl.h>

#include "Hooks.h"
#include "RealDlsym.h"

namespace sl::ip {

__thread CollectiveArgs t_collective __attribute__((tls_model("initial-exec")));

void collectiveAfter(ThreadState* ts, const slog::ApiRecord* r) {
  const CollectiveArgs a = t_collective;
  t_collective = {};
  if (!r) return;
  using RankFn = ncclResult_t (*)(const ncclComm_t, int*);
  static auto userRank = reinterpret_cast<RankFn>(ncclSymbol("ncclCommUserRank"));
  static auto count = reinterpret_cast<RankFn>(ncclSymbol("ncclCommCount"));
  int rank = -1, nranks = -1;
  if (a.comm && userRank && userRank(static_cast<ncclComm_t>(a.comm), &rank) != ncclSuccess) rank = -1;
  if (a.comm && count && count(static_cast<ncclComm_t>(a.comm), &nranks) != ncclSuccess) nranks = -1;
  char* p = reserve(ts, sizeof(slog::CollectiveRecord));
  if (!p) return;
  auto* c = new (p) slog::CollectiveRecord{};
  c->h = {slog::RecType::Collective, uint16_t(sizeof *c)};
  c->datatype = uint8_t(r->kind);
  c->redOp = a.op;
  c->peer = a.peer;
  c->rank = rank;
  c->nranks = nranks;
  c->corr = r->corr;
  c->comm = u64(a.comm);
  commit(ts, sizeof *c);
}

}  // namespace sl::ip

using namespace sl::ip;
using sl::slog::Api;
using sl::slog::ApiRecord;

#define SL_NCCL(NAME, PARAMS, ARGS, ...)                                                        \
  SL_EXPORT ncclResult_t NAME PARAMS {                                                          \
    using Fn = ncclResult_t(*) PARAMS;                                                          \
    auto real = reinterpret_cast<Fn>(realFor(Api::NAME));                                       \
    if (!real) return ncclSystemError; /* no libnccl found: nothing to forward to */            \
    return hookCall(Api::NAME, 0, real,                                                         \
                    __builtin_return_address(0), nullptr, [&](ApiRecord& r) { __VA_ARGS__; }    \
                    SL_COMMA_ARGS ARGS);                                                        \
  }
#define SL_COMMA_ARGS(...) __VA_OPT__(, ) __VA_ARGS__

inline uint8_t opOf(ncclRedOp_t op) { return uint32_t(op) < 0xff ? uint8_t(op) : 0xff; }

SL_NCCL(ncclAllReduce, (const void* s, void* d, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c, cudaStream_t st),
        (s, d, n, t, op, c, st), r.a0 = u64(s); r.a1 = u64(d); r.a2 = n; r.kind = t; r.stream = u64(st);
        t_collective = {c, -1, opOf(op)})
SL_NCCL(ncclBroadcast, (const void* s, void* d, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st),
        (s, d, n, t, root, c, st), r.a0 = u64(s); r.a1 = u64(d); r.a2 = n; r.kind = t; r.stream = u64(st);
        t_collective = {c, root, 0xff})
SL_NCCL(ncclReduce, (const void* s, void* d, size_t n, ncclDataType_t t, ncclRedOp_t op, int root, ncclComm_t c,
                     cudaStream_t st),
        (s, d, n, t, op, root, c, st), r.a0 = u64(s); r.a1 = u64(d); r.a2 = n; r.kind = t; r.stream = u64(st);
        t_collective = {c, root, opOf(op)})
SL_NCCL(ncclAllGather, (const void* s, void* d, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st),
        (s, d, n, t, c, st), r.a0 = u64(s); r.a1 = u64(d); r.a2 = n; r.kind = t; r.stream = u64(st);
        t_collective = {c, -1, 0xff})
SL_NCCL(ncclReduceScatter, (const void* s, void* d, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c,
                            cudaStream_t st),
        (s, d, n, t, op, c, st), r.a0 = u64(s); r.a1 = u64(d); r.a2 = n; r.kind = t; r.stream = u64(st);
        t_collective = {c, -1, opOf(op)})
SL_NCCL(ncclAlltoAll, (const void* s, void* d, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st),
        (s, d, n, t, c, st), r.a0 = u64(s); r.a1 = u64(d); r.a2 = n; r.kind = t; r.stream = u64(st);
        t_collective = {c, -1, 0xff})
SL_NCCL(ncclSend, (const void* s, size_t n, ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t st),
        (s, n, t, peer, c, st), r.a0 = u64(s); r.a2 = n; r.kind = t; r.stream = u64(st);
        t_collective = {c, peer, 0xff})
SL_NCCL(ncclRecv, (void* d, size_t n, ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t st),
        (d, n, t, peer, c, st), r.a1 = u64(d); r.a2 = n; r.kind = t; r.stream = u64(st);
        t_collective = {c, peer, 0xff})
SL_NCCL(ncclGroupStart, (), (), (void)r)
SL_NCCL(ncclGroupEnd, (), (), (void)r)
