"""`streamlint report` gives the same bytes whether the timeline stays in memory or every vector of
it moves to a temporary file at once (SL_SPILL_AFTER_MB=0, SpilledVector.h): text, JSON, SARIF,
the HTML page and the Perfetto trace, on every fixture log and on the rank directories, and on
two NCCL ranks made from the NCCL fixture (its communicators made two ranks wide, rank 1 late:
the rank views' NCCL calls are aligned and SL906 judged from the temporary files); and a
$TMPDIR that cannot be written is an input error (exit 2), not a crash.

    python3 spill_equivalence.py --streamlint build/bin/streamlint --fixtures tests/runtime/fixtures
"""
import argparse
import glob
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "ranks"))
import slog_tool  # noqa: E402


def two_nccl_ranks(fixture, out_dir):
    """Rank 0 and rank 1 from one NCCL log of world size 1: pid and rank in the header and in
    each NCCL record, communicators two ranks wide, rank 1's calls 50 us later."""
    header, chunks = slog_tool.read_log(fixture)
    os.makedirs(out_dir)
    for rank in (0, 1):
        h = bytearray(header)
        struct.pack_into("<Q", h, 16, struct.unpack_from("<Q", h, 16)[0] + rank)  # pid
        struct.pack_into("<i", h, 32, rank)
        parts = [bytes(h)]
        for tid, recs in chunks:
            out = []
            for t, r in recs:
                r = bytearray(r)
                if t == slog_tool.COLLECTIVE:
                    struct.pack_into("<ii", r, 12, rank, 2)  # rank, nranks
                elif t == slog_tool.API and rank:
                    for o in (8, 16):
                        struct.pack_into("<Q", r, o, struct.unpack_from("<Q", r, o)[0] + 50000)
                out.append((t, bytes(r)))
            parts.append(slog_tool.chunk_bytes(tid, out))
        with open(os.path.join(out_dir, f"vm-{rank}.slog"), "wb") as f:
            f.write(b"".join(parts))


def run(streamlint, log, fmt, tmp, spill):
    env = dict(os.environ)
    env.pop("SL_SPILL_AFTER_MB", None)
    if spill:
        env["SL_SPILL_AFTER_MB"] = "0"
    html, trace = os.path.join(tmp, "r.html"), os.path.join(tmp, "t.json")
    extra = ["--html", html, "--trace", trace] if fmt == "text" else []
    p = subprocess.run([streamlint, "report", log, "--format", fmt] + extra, env=env, capture_output=True)
    files = []
    for f in (html, trace) if extra else ():
        with open(f, "rb") as fh:
            files.append(fh.read())
        os.remove(f)
    return p.returncode, p.stdout, p.stderr, files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--streamlint", required=True)
    ap.add_argument("--fixtures", required=True)
    a = ap.parse_args()
    logs = sorted(glob.glob(os.path.join(a.fixtures, "*.slog")) + glob.glob(os.path.join(a.fixtures, "*", "*.slog")))
    logs += [os.path.join(a.fixtures, "ranks", "gloo2-slow"), os.path.join(a.fixtures, "overlap")]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as made:
        ranks = os.path.join(made, "nccl2")
        two_nccl_ranks(os.path.join(a.fixtures, "ranks", "nccl1-ddp.slog"), ranks)
        aligned = run(a.streamlint, ranks, "json", tmp, False)[1]
        if b'"alignedCollectives": []' in aligned or b'"lastRank": 1' not in aligned:
            print(f"{ranks}: no collective aligned, or rank 1 not last: the made ranks test nothing")
            bad += 1
        for log in logs + [ranks]:
            for fmt in ("text", "json", "sarif"):
                if run(a.streamlint, log, fmt, tmp, False) != run(a.streamlint, log, fmt, tmp, True):
                    print(f"DIFFERENT: {log} --format {fmt} with SL_SPILL_AFTER_MB=0")
                    bad += 1
    # A $TMPDIR that cannot hold the files: an input error naming it (exit 2), not an abort.
    env = dict(os.environ, TMPDIR="/nonexistent-streamlint-tmp", SL_SPILL_AFTER_MB="0")
    p = subprocess.run([a.streamlint, "report", logs[0]], env=env, capture_output=True, text=True)
    if p.returncode != 2 or "/nonexistent-streamlint-tmp" not in p.stderr:
        print(f"unwritable TMPDIR: exit {p.returncode}, stderr {p.stderr[-300:]!r}")
        bad += 1
    print(f"{len(logs)} inputs, {bad} different or wrong")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
