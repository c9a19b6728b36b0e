"""Recorder overhead, interleaved A/B: each repetition runs one process per configuration
(baseline, under `streamlint run`, under `streamlint run --sanitize`, under torch.profiler, under
PyTorch's CUDA sanitizer) in a rotating order, so slow drifts of a noisy machine hit every
configuration alike. Reports median per-step times and median slowdowns (paired with the same
repetition's baseline). Usage:
    run_overhead.py --streamlint build/bin/streamlint [--reps 10] [--json OUT.json]
        [--configs baseline,streamlint,profiler] [--workloads train,tiny] [--compare OTHER_STREAMLINT]
configs: baseline, streamlint, sanitize, nogpu (`run --gpu-timing off`), compare (`run` of the
streamlint given by --compare: another build, e.g. an older recorder), profiler, csan;
workloads: train, tiny, transformer."""
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


def run(config, streamlint, logdir, workloads, compare=None):
    cmd = [sys.executable, WORKER, "--workloads", workloads]
    env = dict(os.environ)
    if config == "profiler":
        cmd.append("--profiler")
    if config == "csan":
        env["TORCH_CUDA_SANITIZER"] = "1"
    mode = {"streamlint": [], "sanitize": ["--sanitize"], "nogpu": ["--gpu-timing", "off"], "compare": []}
    if config in mode:
        binary = compare if config == "compare" else streamlint
        cmd = [binary, "run", "--out", logdir] + mode[config] + ["--"] + cmd
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--streamlint", required=True)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--json")
    ap.add_argument("--configs", default="baseline,streamlint,profiler")
    ap.add_argument("--workloads", default="train,tiny")
    ap.add_argument("--compare", help="another streamlint binary, for the `compare` config")
    args = ap.parse_args()
    configs = args.configs.split(",")
    assert configs[0] == "baseline", "the first config is the baseline the others are paired with"
    names = [f"{w}_ms" for w in args.workloads.split(",")]
    results = {c: [] for c in configs}
    logdir = tempfile.mkdtemp(prefix="sl-bench-")
    for rep in range(args.reps):
        k = rep % len(configs)
        for c in configs[k:] + configs[:k]:
            results[c].append(run(c, args.streamlint, logdir, args.workloads, args.compare))
        shutil.rmtree(logdir, ignore_errors=True)
        print(f"rep {rep + 1}/{args.reps}: " + ", ".join(
            f"{c} " + " ".join(f"{w} {results[c][-1][w]:.3f} ms" for w in names) for c in configs), flush=True)
    summary = {}
    for w in names:
        base = [r[w] for r in results["baseline"]]
        summary[w] = {"baseline_median_ms": statistics.median(base)}
        for c in configs[1:]:
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
