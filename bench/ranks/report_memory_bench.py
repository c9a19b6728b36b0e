"""The report's memory and time on long logs (issue 14): replicate a real log N times
(`slog_tool.py replicate`: every call and GPU record again, shifted in time, fresh correlation
ids), then run `streamlint report LOG --format F` (json by default) with each binary given, one after the other
on the same logs, and print wall time, peak RSS (GNU time's %M), bytes per call at the peak, the
ratios to the first binary and whether the outputs are the same; CPU time (user + system) is
printed too: on a shared machine its ratio says more than the wall's.

    python3 bench/ranks/report_memory_bench.py \
        --log /path/to/nccl1-ddp/vm-497.slog --copies 1 10 100 840 \
        --binary before=/tmp/streamlint-main --binary after=build/bin/streamlint [--format text] [--work /tmp/sl-report-mem]

840 copies of the H200 DDP log are ~10 M CUDA calls (1.45 GB): the issue's "10 M-launch log".
Logs already in --work are reused (their size is checked against the copy count's). No GPU.
"""
import argparse
import filecmp
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def make_log(base, copies, work):
    out = os.path.join(work, f"x{copies}.slog")
    if copies == 1:
        return base
    if not os.path.exists(out):
        print(f"making {out} ({copies} copies)...", file=sys.stderr)
        subprocess.run([sys.executable, os.path.join(HERE, "slog_tool.py"), "replicate", base, out + ".tmp",
                        "--copies", str(copies)], check=True, stdout=subprocess.DEVNULL)
        os.rename(out + ".tmp", out)
    return out


def measure(binary, log, out, fmt):
    """(wall s, CPU s, peak RSS KB, CUDA calls read) of `binary report log --format fmt > out`
    (fmt "summary": `--summary out`, whose file is then compared)."""
    args = ["--summary", out] if fmt == "summary" else ["--format", fmt]
    with open(out if fmt != "summary" else os.devnull, "w") as f:
        p = subprocess.run(["/usr/bin/time", "-f", "TIME %e %U %S %M", binary, "report", log] + args,
                           stdout=f, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"{binary} report {log}: exit {p.returncode}\n{p.stderr}")
    wall, user, system, kb = re.search(r"TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)", p.stderr).groups()
    # The summary line follows text findings on stdout (the file), machine formats' on stderr.
    calls = re.search(r"(\d+) CUDA calls", p.stderr)
    if not calls and fmt in ("text", "concise"):
        with open(out, errors="replace") as f:
            calls = re.search(r"streamlint report: \d+ process(?:es)?, (\d+) CUDA calls", f.read())
    return float(wall), float(user) + float(system), int(kb), int(calls.group(1)) if calls else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True, help="a real .slog log to replicate")
    ap.add_argument("--copies", type=int, nargs="+", default=[1, 10, 100])
    ap.add_argument("--binary", action="append", required=True, help="NAME=PATH (the first is the base of the ratios)")
    ap.add_argument("--format", default="json", help="the report's format (text, json, sarif...; summary: --summary)")
    ap.add_argument("--work", default="/tmp/sl-report-mem")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    binaries = [b.split("=", 1) for b in a.binary]
    print("| copies | CUDA calls | binary | wall | CPU | peak RSS | bytes/call | CPU ratio | RSS ratio | output |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in a.copies:
        log = make_log(a.log, n, a.work)
        base = None
        for name, path in binaries:
            out = os.path.join(a.work, f"x{n}.{name}.{a.format}")
            wall, cpu, kb, calls = measure(path, log, out, a.format)
            same = "—" if base is None else ("same" if filecmp.cmp(base[2], out, shallow=False) else "DIFFERENT")
            if base is None:
                base = (cpu, kb, out)
            print(f"| {n} | {calls:,} | {name} | {wall:.2f} s | {cpu:.2f} s | {kb / 1024:.0f} MB "
                  f"| {kb * 1024 / max(calls, 1):.0f} | {cpu / max(base[0], 0.01):.2f} | {kb / base[1]:.2f} | {same} |",
                  flush=True)


if __name__ == "__main__":
    main()
