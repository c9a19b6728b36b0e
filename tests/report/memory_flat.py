"""`streamlint report` holds a constant amount of memory whatever the log's length (issue 14):
the NCCL fixture log replicated 20 and 200 times (bench/ranks/slog_tool.py replicate: every call,
GPU record and NCCL record again, shifted in time) is reported with every SpilledVector in a
temporary file from its first element (SL_SPILL_AFTER_MB=0), in text and with --summary; the
peak RSS of the longer log may exceed the shorter one's by a few bytes per extra call only (what
a structure that grows per call, held in memory, would add: 48 bytes a blocking call off the
user's lines, one merge buffer per 744 calls in the external sort, ~80 bytes per NCCL record in
a hash map). JSON and SARIF are not measured here: their NCCL call lists grow up to their cap
of 10,000 entries (kJsonListCap, ~2.5 KB each as a JSON tree), more than these logs hold; the
bench (bench/ranks/README.md) measures them on 10 and 20 M-call logs.

    python3 memory_flat.py --streamlint build/bin/streamlint --log tests/runtime/fixtures/ranks/nccl1-ddp.slog
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "bench", "ranks", "slog_tool.py")
# Peak RSS of one child, in KB (ru_maxrss of the children of a fresh interpreter: only this one).
PEAK = ("import resource, subprocess, sys\n"
        "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)\n"
        "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        # The summary lines (what was read) follow the findings on stdout, or on stderr after JSON.
        "sys.stderr.write(''.join(l for l in p.stdout.splitlines(True) if l.startswith('streamlint report:')))\n"
        "sys.stderr.write(p.stderr)\n")


def peak_kb(cmd, env):
    p = subprocess.run([sys.executable, "-c", PEAK] + cmd, env=env, capture_output=True, text=True)
    rc, kb = p.stdout.split()
    if rc not in ("0", "1"):
        sys.exit(f"{' '.join(cmd)}: exit {rc}\n{p.stderr[-2000:]}")
    calls = [l for l in p.stderr.splitlines() if "CUDA calls" in l]
    return int(kb), calls[0] if calls else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--streamlint", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--copies", type=int, nargs=2, default=[20, 200])
    ap.add_argument("--max-bytes-per-call", type=float, default=4.0)
    a = ap.parse_args()
    env = dict(os.environ, SL_SPILL_AFTER_MB="0")
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        env["TMPDIR"] = tmp
        logs = []
        for n in a.copies:
            out = os.path.join(tmp, f"x{n}.slog")
            subprocess.run([sys.executable, TOOL, "replicate", a.log, out, "--copies", str(n)], check=True,
                           stdout=subprocess.DEVNULL)
            logs.append(out)
        calls = {}
        for fmt in (["--format", "text"], ["--summary", os.path.join(tmp, "s.json")]):
            kb = []
            for n, log in zip(a.copies, logs):
                k, line = peak_kb([a.streamlint, "report", log] + fmt, env)
                kb.append(k)
                calls[n] = int(line.split(" CUDA calls")[0].split()[-1]) if line else 0
            extra = calls[a.copies[1]] - calls[a.copies[0]]
            per_call = (kb[1] - kb[0]) * 1024 / max(extra, 1)
            ok = per_call <= a.max_bytes_per_call
            bad += not ok
            print(f"{' '.join(fmt)}: {kb[0] / 1024:.1f} MB at {calls[a.copies[0]]:,} calls, {kb[1] / 1024:.1f} MB at "
                  f"{calls[a.copies[1]]:,}: {per_call:+.2f} bytes per extra call{'' if ok else ' (TOO MANY)'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
