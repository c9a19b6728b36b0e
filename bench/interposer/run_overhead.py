"""Recorder overhead, interleaved A/B: each repetition runs one process per configuration
(baseline, under `streamlint run`, under torch.profiler) in a rotating order, so slow drifts of a
noisy machine hit every configuration alike. Reports median per-step times and median slowdowns
(paired with the same repetition's baseline). Usage:
    run_overhead.py --streamlint build/bin/streamlint [--reps 10] [--json OUT.json]"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "overhead_worker.py")


def run(config, streamlint, logdir):
    cmd = [sys.executable, WORKER]
    if config == "profiler":
        cmd.append("--profiler")
    if config == "streamlint":
        cmd = [streamlint, "run", "--out", logdir, "--"] + cmd
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--streamlint", required=True)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--json")
    args = ap.parse_args()
    configs = ["baseline", "streamlint", "profiler"]
    results = {c: [] for c in configs}
    logdir = tempfile.mkdtemp(prefix="sl-bench-")
    for rep in range(args.reps):
        order = configs[rep % 3:] + configs[:rep % 3]
        for c in order:
            results[c].append(run(c, args.streamlint, logdir))
        shutil.rmtree(logdir, ignore_errors=True)
        print(f"rep {rep + 1}/{args.reps}: " + ", ".join(
            f"{c} train {results[c][-1]['train_ms']:.3f} ms tiny {results[c][-1]['tiny_ms']:.3f} ms"
            for c in configs), flush=True)
    summary = {}
    for w in ["train_ms", "tiny_ms"]:
        base = [r[w] for r in results["baseline"]]
        summary[w] = {"baseline_median_ms": statistics.median(base)}
        for c in ["streamlint", "profiler"]:
            vals = [r[w] for r in results[c]]
            paired = [v / b - 1 for v, b in zip(vals, base)]
            summary[w][c] = {"median_ms": statistics.median(vals),
                             "median_slowdown_pct": 100 * statistics.median(paired),
                             "slowdown_of_medians_pct": 100 * (statistics.median(vals) / statistics.median(base) - 1)}
    print(json.dumps(summary, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"reps": args.reps, "raw": results, "summary": summary}, f, indent=1)


if __name__ == "__main__":
    main()
