"""Rewrites .slog logs (format: interposer/include/streamlint/LogFormat.h) chunk by chunk.

    slog_tool.py trim IN.slog OUT.slog --keep-kb 300
        keeps the calls made until KEEP_KB of them were written, the GPU activity of that time,
        and every record that is not per call (code objects, strings, modules, clocks, windows,
        messages, the trailer): a smaller log of the run's beginning that still reads as a whole
        log (fixtures).
    slog_tool.py replicate IN.slog OUT.slog --copies N
        writes the calls and GPU activity of IN N times, each copy shifted past the previous one
        in time with fresh correlation numbers: a log N times as long (the report's scale bench).
"""
import argparse
import struct
import sys

FILE_MAGIC = b"SLOG\r\n\x1a\n"
CHUNK_MAGIC = 0x4B434C53
API, ACTIVITY, COLLECTIVE, ACCESS, BLOCK, TRAILER, CLOCK, WINDOW = 1, 4, 14, 11, 13, 7, 8, 10
PER_CALL = {API, ACTIVITY, COLLECTIVE, ACCESS, BLOCK}


def fnv1a32(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def read_log(path):
    return parse_log(open(path, "rb").read(), path)


def parse_log(data, path):
    """(header bytes, [(tid, [(record type, record bytes)])]) of a log's bytes; `path` names it in messages."""
    if data[:8] != FILE_MAGIC:
        sys.exit(f"{path}: not a streamlint log")
    header_bytes = struct.unpack_from("<I", data, 12)[0]
    chunks, off = [], header_bytes
    while off + 16 <= len(data):
        magic, n, checksum, tid = struct.unpack_from("<IIII", data, off)
        payload = data[off + 16: off + 16 + n]
        if magic != CHUNK_MAGIC or len(payload) < n or fnv1a32(payload) != checksum:
            print(f"{path}: damaged at byte {off}; kept what came before", file=sys.stderr)
            break
        chunks.append((tid, records(payload)))
        off += 16 + n
    return data[:header_bytes], chunks


def records(payload):
    out, off = [], 0
    while off + 4 <= len(payload):
        rtype, n = struct.unpack_from("<HH", payload, off)
        if n == 0:
            break
        out.append((rtype, payload[off: off + n]))
        off += n
    return out


def chunk_bytes(tid, recs):
    payload = b"".join(r for _, r in recs)
    return struct.pack("<IIII", CHUNK_MAGIC, len(payload), fnv1a32(payload), tid) + payload


def trim(a):
    """Calls in the order of their chunks until KEEP_KB of them, then the GPU activity of the
    time those calls cover (CUPTI flushes it in later chunks: kept by its timestamps)."""
    header, chunks = read_log(a.input)
    clocks = [struct.unpack_from("<QQ", r, 8) for _, recs in chunks for t, r in recs if t == CLOCK]
    offset = clocks[0][0] - clocks[0][1] if clocks else 0  # CUPTI ns - CLOCK_MONOTONIC ns
    kept_calls, budget, cut = 0, a.keep_kb * 1024, None
    for tid, recs in chunks:
        for t, r in recs:
            if t == API and cut is None:
                kept_calls += len(r)
                if kept_calls > budget:
                    cut = struct.unpack_from("<Q", r, 16)[0]  # this call's exit
    if cut is None:
        cut = 1 << 64

    def keep(t, r):
        if t in (API,):
            return struct.unpack_from("<Q", r, 8)[0] <= cut
        if t == ACTIVITY:
            return struct.unpack_from("<Q", r, 8)[0] <= cut + offset
        return True  # code objects, strings, modules, clocks, windows, messages, trailer...

    out, size = [header], len(header)
    for tid, recs in chunks:
        kept, drop_next = [], False
        for t, r in recs:
            if t == COLLECTIVE or t == ACCESS:  # follows its call: kept with it
                if not drop_next:
                    kept.append((t, r))
                continue
            drop_next = not keep(t, r)
            if not drop_next:
                kept.append((t, r))
        if kept:
            b = chunk_bytes(tid, kept)
            out.append(b)
            size += len(b)
    open(a.output, "wb").write(b"".join(out))
    print(f"{a.output}: {size} bytes (from {a.input})")


def shifted(rtype, rec, shift, corr_shift):
    rec = bytearray(rec)
    if rtype == API:  # tEnter, tExit at 8, 16; corr at 48
        for o in (8, 16):
            struct.pack_into("<Q", rec, o, struct.unpack_from("<Q", rec, o)[0] + shift)
        struct.pack_into("<Q", rec, 48, struct.unpack_from("<Q", rec, 48)[0] + corr_shift)
    elif rtype == ACTIVITY:  # start, end at 8, 16; externalId at 24; correlationId at 40
        for o in (8, 16):
            struct.pack_into("<Q", rec, o, struct.unpack_from("<Q", rec, o)[0] + shift)
        ext = struct.unpack_from("<Q", rec, 24)[0]
        if ext:
            struct.pack_into("<Q", rec, 24, ext + corr_shift)
        struct.pack_into("<I", rec, 40, (struct.unpack_from("<I", rec, 40)[0] + corr_shift) & 0xFFFFFFFF)
    elif rtype == COLLECTIVE:  # corr at 24
        struct.pack_into("<Q", rec, 24, struct.unpack_from("<Q", rec, 24)[0] + corr_shift)
    return bytes(rec)


def replicate(a):
    header, chunks = read_log(a.input)
    lo, hi, max_corr = None, 0, 0
    for _, recs in chunks:
        for t, r in recs:
            if t == API:
                enter, exit_ = struct.unpack_from("<QQ", r, 8)
                lo = enter if lo is None else min(lo, enter)
                hi = max(hi, exit_)
                max_corr = max(max_corr, struct.unpack_from("<Q", r, 48)[0])
    span = (hi - (lo or 0)) + 1000000
    with open(a.output, "wb") as f:
        f.write(header)
        meta = [(tid, [(t, r) for t, r in recs if t not in PER_CALL and t not in (TRAILER, WINDOW)])
                for tid, recs in chunks]
        for tid, recs in meta:
            if recs:
                f.write(chunk_bytes(tid, recs))
        for k in range(a.copies):
            for tid, recs in chunks:
                calls = [(t, shifted(t, r, k * span, k * (max_corr + 1))) for t, r in recs if t in PER_CALL]
                if calls:
                    f.write(chunk_bytes(tid, calls))
        trailer = [(t, r) for _, recs in chunks for t, r in recs if t == TRAILER]
        if trailer:
            f.write(chunk_bytes(chunks[-1][0], trailer[-1:]))
    print(f"{a.output}: {a.copies} copies of {a.input}")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("trim")
    t.add_argument("input")
    t.add_argument("output")
    t.add_argument("--keep-kb", type=int, default=300)
    r = sub.add_parser("replicate")
    r.add_argument("input")
    r.add_argument("output")
    r.add_argument("--copies", type=int, required=True)
    a = ap.parse_args()
    trim(a) if a.cmd == "trim" else replicate(a)


if __name__ == "__main__":
    main()
