// Logs of NCCL ranks built in a test (LogBuilder.h): NCCL calls with their CollectiveRecord, NCCL
// kernels by name, for the communication analysis, the cross-rank alignment and SL906 without a
// GPU. The CUPTI clock is the host clock.
#pragma once
#include <string>

#include "LogBuilder.h"

namespace sl::runtime::test {

inline constexpr uint32_t kNcclKernelName = 2;
inline constexpr uint32_t kFloat32 = 7;  // ncclFloat32

struct RankLog : LogBuilder {
  explicit RankLog(int rank, uint64_t pid = 0) {
    log.header.rank = rank;
    log.header.pid = pid ? pid : 1000 + uint64_t(rank);
    log.header.worldSize = 2;
    log.path = "/tmp/logs/node1-" + std::to_string(log.header.pid) + ".slog";
    log.strings[kNcclKernelName] = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
  }

  // An NCCL call from train.py:`line` on NCCL stream handle `stream`, taking 20 us on the host.
  size_t nccl(slog::Api api, uint64_t enterNs, uint32_t line, uint64_t count, int nranks = 2,
              uint64_t comm = 0xc0ffee, uint64_t stream = 0x7777, int peer = -1) {
    size_t i = call(api, enterNs, enterNs + 20000, line, stream);
    ApiCall& c = log.calls[i];
    c.rec.a2 = count;
    c.rec.kind = kFloat32;
    slog::CollectiveRecord r{};
    r.h = {slog::RecType::Collective, sizeof r};
    r.datatype = kFloat32;
    r.redOp = 0;
    r.peer = peer;
    r.rank = log.header.rank;
    r.nranks = nranks;
    r.corr = c.rec.corr;
    r.comm = comm;
    log.collectives.add(r);
    return i;
  }
  size_t allReduce(uint64_t enterNs, uint32_t line = 50, uint64_t count = 1 << 20, int nranks = 2) {
    return nccl(slog::Api::ncclAllReduce, enterNs, line, count, nranks);
  }

  // A kernel named `nameId` (1 compute, kNcclKernelName NCCL's) on CUPTI stream `stream`.
  void namedKernel(uint64_t startNs, uint64_t endNs, uint32_t stream, uint32_t nameId) {
    kernel(startNs, endNs, stream);
    log.activities.back().nameId = nameId;
  }
  void ncclKernel(uint64_t startNs, uint64_t endNs, uint32_t stream = 20) {
    namedKernel(startNs, endNs, stream, kNcclKernelName);
  }
  // A compute kernel and its launch from train.py:`line`, 50 us before it starts.
  void compute(uint64_t startNs, uint64_t endNs, uint32_t line = 10, uint32_t stream = 7) {
    launch(startNs - 50000, line);
    kernel(startNs, endNs, stream);
  }
};

}  // namespace sl::runtime::test

namespace sl::runtime::test {

// `log` as the recorder writes it: the header, then one checksummed chunk of every record (code
// objects, strings, calls with their CollectiveRecords, GPU activity, clocks) and a trailer, so
// that `streamlint report` reads it back through LogReader.
inline std::string slogBytes(const ProcessLog& log) {
  slog::FileHeader h = log.header;
  std::memcpy(h.magic, slog::kMagic, 8);
  h.version = slog::kVersion;
  h.headerBytes = sizeof h;
  std::string payload;
  auto pad = [&] { payload.resize(slog::align8(payload.size()), '\0'); };
  auto put = [&](const void* p, size_t n) { payload.append(static_cast<const char*>(p), n); };
  for (const auto& [id, code] : log.codes) {
    slog::CodeDefRecord r{};
    r.codeId = id;
    r.firstLine = code.firstLine;
    r.fileLen = uint16_t(code.file.size());
    r.nameLen = uint16_t(code.name.size());
    r.h = {slog::RecType::CodeDef, uint16_t(slog::align8(sizeof r + code.file.size() + code.name.size()))};
    put(&r, sizeof r);
    payload += code.file + code.name;
    pad();
  }
  for (const auto& [id, text] : log.strings) {
    slog::StringRecord r{{slog::RecType::String, uint16_t(slog::align8(sizeof r + text.size()))}, id, uint32_t(text.size())};
    put(&r, sizeof r);
    payload += text;
    pad();
  }
  for (const auto& c : log.calls) {
    put(&c.rec, sizeof c.rec);
    if (auto r = log.collectives.find(c.rec.corr)) put(&*r, sizeof *r);
  }
  for (const auto& a : log.activities) put(&a, sizeof a);
  for (const auto& c : log.clocks) put(&c, sizeof c);
  slog::TrailerRecord t{};
  t.h = {slog::RecType::Trailer, sizeof t};
  t.cuptiState = uint32_t(slog::CuptiState::Active);
  put(&t, sizeof t);
  std::string out(reinterpret_cast<const char*>(&h), sizeof h);
  slog::ChunkHeader ch{slog::kChunkMagic, uint32_t(payload.size()), slog::fnv1a32(payload.data(), payload.size()), 100};
  out.append(reinterpret_cast<const char*>(&ch), sizeof ch);
  return out + payload;
}

}  // namespace sl::runtime::test
