"""SL904 on real libraries' stream code (issue 34): `streamlint report` on short recordings made
with `streamlint run --sanitize` on the GPU machine from bench/sanitize/real/ (FSDP2, DDP,
save_on_cpu, a transformers GPT-2 with gradient checkpointing, Lightning with forked workers,
a 1F1B schedule). The logs are gzipped (fixtures/sanitize/real/*.slog.gz); each is unpacked into
a temporary folder first. A correct program's log must give no SL904 (and must have been
judged); a mutant's log must give the race of the edge it removed, at the program's lines.

    real_libs_test.py --streamlint BIN
"""
import argparse
import gzip
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "ranks"))
import slog_tool  # noqa: E402  (the log's chunk framing, shared with the report tests)
FIX = os.path.join(HERE, "fixtures", "sanitize", "real")
SRC = "bench/sanitize/real/"

# log -> None (correct: no SL904) or (kind, file, line of the finding, line of the other access).
# Recorded on an H100 (4 steps each; the Lightning no-side-join and FSDP2 fake-world ones on
# 2026-12-07 with the recorder of main 79e0286).
EXPECTED = {
    "h100-fsdp2-r1-o0.slog.gz": None,  # reshard_after_forward=True, no offload
    "h100-fsdp2-r0-o1.slog.gz": None,  # reshard_after_forward=False, CPUOffloadPolicy
    "h100-ddp.slog.gz": None,
    "h100-save_on_cpu.slog.gz": None,
    "h100-1f1b.slog.gz": None,
    # The copy at line 58 (the head's bias into the addmm output) is launched with TensorIterator's
    # OffsetCalculator by value: past the tensor's dimensions it still holds the side stream's
    # `mean` arguments of line 55 (its freed input and the statistic). Taken for accesses, they
    # gave a missing join 55 / 58 every step; they are left-over words now (StreamRaces.cpp).
    "h100-lightning.slog.gz": None,
    # FSDP2's foreach_reduce without reduce_scatter_stream.wait_stream(current): the copy-in reads
    # gradients the backward is still writing (both in loss.backward(), line 47)
    "h100-fsdp2-r1-o0-M-no-reduce-scatter-wait.slog.gz": ("missing-wait", "fsdp2.py", 47, 47),
    # the comm hook's future without CUDA events: opt.step() (51) reads NCCL's all-reduce (30)
    "h100-ddp-M-future-without-events.slog.gz": ("missing-join", "ddp.py", 51, 30),
    # stage 0's backward reads stage 1's activation gradient unordered (both at the backward line)
    "h100-1f1b-M-no-grad-wait.slog.gz": ("missing-wait", "pipeline_1f1b.py", 60, 60),
    # the side stream reads the activation (51) without waiting for the step's stream
    "h100-lightning-M-no-side-wait.slog.gz": ("missing-wait", "lightning_fit.py", 55, 51),
    # no cur.wait_stream(side): the step's stream reads the last step's statistic (50), made on
    # the side stream (55); before the left-over words were set aside, the false 55 / 58 hid it
    "h100-lightning-M-no-side-join.slog.gz": ("missing-join", "lightning_fit.py", 50, 55),
    # FSDP2 as rank 0 of 2 over the fake process group (fsdp2.py --fake-world 2): its all-gather
    # streams in use on one GPU
    "h100-fsdp2-fw2-r1.slog.gz": None,
    # the all-gather stream does not wait for the copy-in stream (foreach_all_gather's
    # wait_stream): the all-gather reads its input unordered with the copy-in (both in forward, 64)
    "h100-fsdp2-fw2-r1-M-no-copy-in-wait.slog.gz": ("missing-wait", "fsdp2.py", 64, 64),
}

# Mutants made here from a correct program's log: (source log, what is removed, expected as above).
# 1F1B without its join before the optimizer (`cur.wait_stream(s)`, pipeline_1f1b.py:87: the only
# waits the default stream makes): opt.step() (88) reads the stages' gradients unordered. The
# caching allocator's own polls at line 88 (of the events it recorded when the activations and
# gradients, used on the other stage's stream, were freed) saw that work done in this run; they
# must not stand in for the join.
DERIVED = {
    "1f1b-without-the-join": ("h100-1f1b.slog.gz", "default-stream waits", ("missing-join", "pipeline_1f1b.py", 88, 60)),
}

# What `report` must also say on stderr for a log: the mechanism a log depends on, seen at work.
NOTICES = {
    "h100-lightning.slog.gz": "left over from earlier launches' arguments",
}


def fail(msg):
    sys.exit("FAIL: " + msg)


def api_index(name):
    """The slog::Api number of a CUDA call (LogFormat.h's SL_API_LIST, append only)."""
    text = open(os.path.join(ROOT, "interposer", "include", "streamlint", "LogFormat.h")).read()
    table = re.search(r"#define SL_API_LIST\(X\)(.*?)\n\n", text, re.S).group(1)
    return re.findall(r"X\((\w+),", table).index(name)


def without_default_stream_waits(data):
    """The log with the stream waits made on the legacy default stream left out (chunks rewritten
    with their checksums): ApiRecord is {type u16, bytes u16, api u16, ...}, `stream` at byte 40."""
    waits = {api_index("cudaStreamWaitEvent"), api_index("cuStreamWaitEvent")}
    header, chunks = slog_tool.parse_log(data, "fixture")
    out, dropped = [header], 0
    for tid, recs in chunks:
        kept = []
        for t, r in recs:
            if t == slog_tool.API and struct.unpack_from("<H", r, 4)[0] in waits and struct.unpack_from("<Q", r, 40)[0] == 0:
                dropped += 1
            else:
                kept.append((t, r))
        out.append(slog_tool.chunk_bytes(tid, kept))
    if not dropped:
        fail("the log has no default-stream wait to remove")
    return b"".join(out)


def races(slog_gz, tmp, derive=None, name=None):
    log = os.path.join(tmp, (name or os.path.basename(slog_gz)[:-3]) + ("" if not name else ".slog"))
    with gzip.open(slog_gz, "rb") as f:
        data = f.read()
    with open(log, "wb") as g:
        g.write(derive(data) if derive else data)
    # From the repository root: the log names the GPU machine's paths, found here by their tails.
    p = subprocess.run([A.streamlint, "report", log, "--format", "json"], capture_output=True, text=True, cwd=ROOT)
    if p.returncode not in (0, 1):
        fail(f"report {log} exited {p.returncode}: {p.stderr}")
    if "SL904 checked" not in p.stderr or "SL904 not judged" in p.stderr:
        fail(f"{log}: the race check must have run on the whole log: {p.stderr}")
    notice = NOTICES.get(os.path.basename(slog_gz))
    if notice and notice not in p.stderr:
        fail(f"{log}: report must say '{notice}': {p.stderr}")
    return [f for f in json.loads(p.stdout)["findings"] if f["rule"] == "SL904"]


def check(name, found, want=None):
    want = want if want is not None else EXPECTED[name]
    got = [(f["properties"]["kind"], f["path"], f["line"], f["properties"]["lines"]) for f in found]
    if want is None:
        if found:
            fail(f"{name}: a correct program, no SL904 expected, got {got}")
        return
    kind, src, line, other = want
    hits = [f for f in found if f["properties"]["kind"] == kind and f["path"].endswith(SRC + src) and f["line"] == line
            and any(l.endswith(f"{src}:{other}") for l in f["properties"]["lines"])]
    if not hits:
        fail(f"{name}: {kind} at {src}:{line} (other access at line {other}) expected, got {got}")


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("--streamlint", required=True)
    A = ap.parse_args()
    logs = sorted(f for f in os.listdir(FIX) if f.endswith(".slog.gz"))
    if sorted(EXPECTED) != logs:  # a fixture without an expectation, or one gone: both are errors
        fail(f"fixtures {logs} and expectations {sorted(EXPECTED)} differ")
    with tempfile.TemporaryDirectory() as tmp:
        for name in logs:
            check(name, races(os.path.join(FIX, name), tmp))
        for name, (src, _, want) in DERIVED.items():
            check(name, races(os.path.join(FIX, src), tmp, without_default_stream_waits, name), want)
    print(f"PASS ({len(logs)} logs, {len(DERIVED)} derived)")


if __name__ == "__main__":
    main()
