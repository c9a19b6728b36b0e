#include "runtime/LogReader.h"

#include <algorithm>
#include <cstddef>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace sl::runtime {

const Module* ProcessLog::moduleFor(uint64_t addr) const {
  constexpr size_t kHits = 4096;
  if (moduleHits_.size() != kHits || moduleHitsFor_ != modules.size()) {
    moduleHits_.assign(kHits, ModuleHit{});
    moduleHitsFor_ = modules.size();
  }
  ModuleHit& hit = moduleHits_[(addr ^ (addr >> 12)) % kHits];
  if (hit.index == -2 || hit.addr != addr) {
    hit.addr = addr;
    hit.index = -1;
    for (size_t i = 0; i < modules.size(); ++i)
      if (addr >= modules[i].lo && addr < modules[i].hi) { hit.index = int64_t(i); break; }
  }
  return hit.index < 0 ? nullptr : &modules[size_t(hit.index)];
}

namespace {

template <class T>
bool fits(const char* p, const char* end) { return size_t(end - p) >= sizeof(T); }

// The fixed part of a record of type T into `out`; false (with `why`) when the record is shorter.
template <class T>
bool fixedPart(const char* body, const slog::RecHeader& h, T& out, std::string& why, const char* what) {
  if (h.bytes < sizeof out) { why = std::string("short ") + what; return false; }
  std::memcpy(&out, body, sizeof out);
  return true;
}

// Parses one chunk's records. False when a record is malformed (then the chunk is damaged).
bool parseRecords(const char* p, const char* end, uint32_t tid, ProcessLog& log, std::string& why,
                  const ReadOptions& options) {
  const bool others = !options.callsAndActivitiesOnly;
  while (p < end) {
    if (!fits<slog::RecHeader>(p, end)) { why = "record header cut off"; return false; }
    slog::RecHeader h;
    std::memcpy(&h, p, sizeof h);
    if (h.bytes == 0 || h.bytes % 8 != 0 || h.bytes > size_t(end - p)) {
      why = "record of impossible size " + std::to_string(h.bytes);
      return false;
    }
    const char* body = p;
    p += h.bytes;
    switch (h.type) {
      case slog::RecType::Pad: break;
      case slog::RecType::Api: {
        ApiCall c;
        if (!fixedPart(body, h, c.rec, why, "API record")) return false;
        c.tid = tid;
        c.nframes = std::min<uint8_t>(c.rec.nframes, slog::kMaxFrames);
        if (sizeof c.rec + 8u * c.nframes > h.bytes) { why = "API record frames cut off"; return false; }
        log.apiRecords++;
        if (options.keep && !options.keep(c.rec)) break;
        log.keptCalls++;
        if (options.onCall) {
          uint64_t frames[slog::kMaxFrames];
          std::memcpy(frames, body + sizeof c.rec, 8u * c.nframes);
          options.onCall(c, frames);
          break;
        }
        c.framesAt = uint32_t(log.frames.size());
        log.frames.resize(log.frames.size() + c.nframes);
        std::memcpy(log.frames.data() + c.framesAt, body + sizeof c.rec, 8u * c.nframes);
        log.calls.push_back(c);
        break;
      }
      case slog::RecType::CodeDef: {
        slog::CodeDefRecord r;
        std::memcpy(&r, body, std::min<size_t>(sizeof r, h.bytes));
        size_t need = sizeof r + r.fileLen + r.nameLen + r.lineTableLen;
        if (h.bytes < sizeof r || need > h.bytes) { why = "code record cut off"; return false; }
        const char* t = body + sizeof r;
        CodeDef d{std::string(t, r.fileLen), std::string(t + r.fileLen, r.nameLen), r.firstLine,
                  std::string(t + r.fileLen + r.nameLen, r.lineTableLen), (r.flags & 1) != 0};
        if (others) log.codes[r.codeId] = std::move(d);
        break;
      }
      case slog::RecType::Module: {
        slog::ModuleRecord r;
        if (!fixedPart(body, h, r, why, "module record")) return false;
        if (sizeof r + r.pathLen > h.bytes) { why = "module record cut off"; return false; }
        Module m{std::string(body + sizeof r, r.pathLen), r.base, r.lo, r.hi};
        bool known = std::any_of(log.modules.begin(), log.modules.end(), [&](const Module& x) {
          return x.base == m.base && x.path == m.path;
        });
        if (!known && others) log.modules.push_back(std::move(m));
        break;
      }
      case slog::RecType::Activity: {
        slog::ActivityRecord a;
        if (!fixedPart(body, h, a, why, "activity record")) return false;
        log.activityRecords++;
        if (options.onActivity) options.onActivity(a);
        else if (options.keepActivities) log.activities.push_back(a);
        break;
      }
      case slog::RecType::String: {
        slog::StringRecord r;
        if (!fixedPart(body, h, r, why, "string record")) return false;
        if (sizeof r + r.len > h.bytes) { why = "string record cut off"; return false; }
        if (others) log.strings[r.id] = std::string(body + sizeof r, r.len);
        break;
      }
      case slog::RecType::Message: {
        uint32_t len = 0;
        if (h.bytes < 8) { why = "short message"; return false; }
        std::memcpy(&len, body + sizeof h, 4);
        if (sizeof h + 4 + len > h.bytes) { why = "message cut off"; return false; }
        if (others) log.messages.emplace_back(body + sizeof h + 4, len);
        break;
      }
      case slog::RecType::Trailer: {
        // Older recorders' trailers end before the write-failure counts: those read as 0.
        slog::TrailerRecord t{};
        if (h.bytes < slog::kTrailerV1Bytes) { why = "short trailer"; return false; }
        std::memcpy(&t, body, std::min<size_t>(h.bytes, sizeof t));
        log.trailer = t;
        break;
      }
      case slog::RecType::Clock: {
        slog::ClockRecord c;
        if (!fixedPart(body, h, c, why, "clock record")) return false;
        if (others) log.clocks.push_back(c);
        break;
      }
      case slog::RecType::Window: {
        slog::WindowRecord w;
        if (!fixedPart(body, h, w, why, "window record")) return false;
        if (others) log.windows.push_back(w);
        break;
      }
      case slog::RecType::Access: {
        slog::AccessRecord a;
        if (!fixedPart(body, h, a, why, "access record")) return false;
        if (sizeof a + 8u * a.n > h.bytes) { why = "access record words cut off"; return false; }
        log.sanitize = true;
        if (!others) break;
        LaunchFootprint& f = log.footprints[a.corr];
        f.flags = a.flags;
        f.words.resize(a.n);
        std::memcpy(f.words.data(), body + sizeof a, 8u * a.n);
        break;
      }
      case slog::RecType::Gap: {
        slog::GapRecord g;
        if (!fixedPart(body, h, g, why, "gap record")) return false;
        if (others) log.gaps.push_back({tid, g.fromNs, g.toNs, g.dropped});
        log.sanitize = true;
        break;
      }
      case slog::RecType::Block: {
        slog::BlockRecord b;
        if (!fixedPart(body, h, b, why, "block record")) return false;
        if (others) log.blocks.push_back(b);
        log.sanitize = true;
        break;
      }
      case slog::RecType::Collective: {
        slog::CollectiveRecord c;
        if (!fixedPart(body, h, c, why, "collective record")) return false;
        if (others) log.collectives.add(c);
        break;
      }
      case slog::RecType::Thread: {
        slog::ThreadRecord r;
        if (!fixedPart(body, h, r, why, "thread record")) return false;
        if (sizeof r + r.nameLen > h.bytes) { why = "thread record cut off"; return false; }
        if (others) log.threads[tid] = ThreadStart{std::string(body + sizeof r, r.nameLen), r.parentTid, r.pyCode, r.pyOffset};
        break;
      }
      default: break;  // a newer record kind of the same version: skip it by its size
    }
  }
  return true;
}

// The fields a header of `bytes` bytes does not have: "unknown", as the recorder writes them.
void clearLaterFields(slog::FileHeader& h, size_t bytes) {
  if (bytes >= sizeof h) return;
  std::memset(reinterpret_cast<char*>(&h) + bytes, 0, sizeof h - bytes);
  if (bytes <= offsetof(slog::FileHeader, worldSize)) h.worldSize = -1;
  if (bytes <= offsetof(slog::FileHeader, nodeRank)) h.nodeRank = -1;
}

// Switches are written by whichever thread made them, in chunks that interleave: by time.
void sortWindows(ProcessLog& log) {
  std::stable_sort(log.windows.begin(), log.windows.end(),
                   [](const slog::WindowRecord& a, const slog::WindowRecord& b) { return a.tBefore < b.tBefore; });
}

}  // namespace

bool readLog(const std::string& path, ProcessLog& log, std::string& error, const ReadOptions& options) {
  log = ProcessLog{};
  log.path = path;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  char head[sizeof(slog::FileHeader)] = {};
  in.read(head, sizeof head);
  if (size_t(in.gcount()) < 16 || std::memcmp(head, slog::kMagic, 8) != 0) {
    error = path + ": not a streamlint runtime log (bad magic)";
    return false;
  }
  std::memcpy(&log.header, head, sizeof head);
  if (log.header.version != slog::kVersion) {
    error = path + ": log format version " + std::to_string(log.header.version) +
            ", this streamlint reads version " + std::to_string(slog::kVersion);
    return false;
  }
  // Logs of older recorders have a shorter header: what `head` read past it is chunk data.
  const size_t headerBytes = std::min<size_t>(log.header.headerBytes, sizeof head);
  if (headerBytes < sizeof head) clearLaterFields(log.header, headerBytes);
  if (size_t(in.gcount()) < headerBytes || headerBytes < slog::kFirstHeaderBytes) {
    log.problems.push_back("the file header is cut off");
    return true;
  }
  in.clear();  // a log shorter than today's header hit the end of the file reading it
  in.seekg(0, std::ios::end);
  const uint64_t fileBytes = uint64_t(in.tellg());
  in.seekg(log.header.headerBytes, std::ios::beg);
  std::vector<char> buf;
  uint64_t offset = log.header.headerBytes;
  while (true) {
    slog::ChunkHeader ch;
    in.read(reinterpret_cast<char*>(&ch), sizeof ch);
    if (in.gcount() == 0) break;
    std::string why;
    if (size_t(in.gcount()) < sizeof ch) why = "chunk header cut off";
    else if (ch.magic != slog::kChunkMagic) why = "bad chunk marker";
    // Checked before allocating: a damaged size must not cost gigabytes.
    else if (ch.bytes > fileBytes - std::min<uint64_t>(fileBytes, offset + sizeof ch)) why = "chunk cut off";
    else {
      buf.resize(ch.bytes);
      in.read(buf.data(), ch.bytes);
      if (size_t(in.gcount()) < ch.bytes) why = "chunk cut off";
      else if (slog::fnv1a32(buf.data(), buf.size()) != ch.checksum) why = "checksum mismatch";
      else if (!parseRecords(buf.data(), buf.data() + buf.size(), ch.tid, log, why, options)) {}
    }
    if (!why.empty()) {
      log.problems.push_back("damaged at byte " + std::to_string(offset) + " (" + why +
                             "): read as far as that");
      sortWindows(log);
      return true;
    }
    offset += sizeof ch + ch.bytes;
  }
  sortWindows(log);
  if (!log.trailer)
    log.problems.push_back("no trailer: the process ended without flushing (killed, crashed or "
                           "_exit); read as far as the log goes");
  return true;
}

namespace {
struct TableCursor {
  const std::string& t;
  size_t i = 0;
  bool more() const { return i < t.size(); }
  uint8_t next() { return i < t.size() ? uint8_t(t[i++]) : 0; }
  uint32_t varint() {
    uint8_t b = next();
    uint32_t v = b & 63;
    for (int shift = 6; (b & 64) && more() && shift < 32; shift += 6) {
      b = next();
      v |= uint32_t(b & 63) << shift;
    }
    return v;
  }
  int32_t svarint() {
    uint32_t v = varint();
    return (v & 1) ? -int32_t(v >> 1) : int32_t(v >> 1);
  }
};
}  // namespace

// CPython's location table (Objects/locations.md, 3.11-3.13): entries of
// [1 code:4 length-1:3] + payload; codes 0-9 same line, 10-12 line +0/+1/+2, 13 signed varint
// line delta, 14 long form (delta first), 15 no location. Lengths are in 2-byte code units.
uint32_t pythonLine(const CodeDef& code, uint32_t offset) {
  if (offset == 0xffffffffu || code.lineTable.empty()) return code.firstLine;
  TableCursor c{code.lineTable};
  int64_t line = code.firstLine;
  uint64_t addr = 0;
  while (c.more()) {
    uint8_t first = c.next();
    if (!(first & 0x80)) continue;  // not an entry start: resynchronise
    int kind = (first >> 3) & 15;
    uint64_t end = addr + 2 * ((first & 7) + 1);
    int64_t delta = 0;
    if (kind == 13 || kind == 14) delta = c.svarint();
    else if (kind >= 10 && kind <= 12) delta = kind - 10;
    line += delta;
    while (c.more() && !(uint8_t(code.lineTable[c.i]) & 0x80)) ++c.i;  // skip column data
    if (offset < end) return kind == 15 || line <= 0 ? 0 : uint32_t(line);
    addr = end;
  }
  return 0;
}

std::vector<std::string> unwrittenParts(const std::string& path, const slog::TrailerRecord& t) {
  std::vector<std::string> parts;
  auto say = [&](const std::string& why, uint64_t records, uint64_t bytes) {
    parts.push_back(path + ": " + why + ": " + std::to_string(records) + " CUDA call records (" +
                    std::to_string(bytes) + " bytes) after it were not written (counted as dropped)");
  };
  if (t.cappedChunks) say("the log reached its size cap (SL_MAX_LOG_MB)", t.cappedRecords, t.cappedBytes);
  if (t.writeErrno)
    say(t.writeErrno == EBADF ? std::string("the program closed the log's descriptor")
                              : "writing the log failed (" + std::string(strerror(int(t.writeErrno))) + ")",
        t.unwrittenRecords, t.unwrittenBytes);
  return parts;
}

bool readTrailerAtEnd(const std::string& path, std::optional<slog::TrailerRecord>& trailer) {
  trailer.reset();
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  struct {
    slog::ChunkHeader chunk;
    slog::TrailerRecord rec;
  } tail{};
  static_assert(sizeof tail == sizeof(slog::ChunkHeader) + sizeof(slog::TrailerRecord));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < std::streamoff(sizeof(slog::FileHeader) + sizeof tail)) return true;
  in.seekg(size - std::streamoff(sizeof tail));
  if (!in.read(reinterpret_cast<char*>(&tail), sizeof tail)) return false;
  if (tail.chunk.magic == slog::kChunkMagic && tail.chunk.bytes == sizeof tail.rec &&
      tail.rec.h.type == slog::RecType::Trailer && tail.rec.h.bytes == sizeof tail.rec &&
      tail.chunk.checksum == slog::fnv1a32(&tail.rec, sizeof tail.rec))
    trailer = tail.rec;
  return true;
}

}  // namespace sl::runtime
