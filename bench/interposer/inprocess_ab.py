"""In-process interleaved A/B of the recorder's cost, run under `streamlint run`:

    streamlint run --out /tmp/ab -- python3 inprocess_ab.py [--reps 50] [--profiler-reps 12] [--json OUT]

Process-to-process noise on the GPU machine (±25 % on a launch-bound loop) hides a few-percent
effect, so the configurations alternate block by block inside one process, toggled through the
recorder's `streamlint_recording(mode)`: 0 = paused (hooks pass straight through; the library
stays loaded), 1 = everything (host calls + CUPTI GPU timing), 2 = host calls only.
Phase 1 rotates paused/full/host-only/paused again (the second paused block is an A/A control:
its "slowdown" is the noise floor); one untimed call of each workload follows every switch, so
blocks time the steady state. Within one process the loop still drifts by up to 40 % over a
minute, and one block's A/A noise is about ±3 %: hence many short repetitions and paired
medians. Phase 2 rotates paused/torch.profiler (the profiler takes CUPTI for good, so it comes
last). The process-level A/B is run_overhead.py."""
import ctypes
import json
import statistics
import sys
import time

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from overhead_worker import tiny_workload, train_workload  # noqa: E402


def block(fn, n):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / n


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main():
    reps = arg("--reps", 50)
    preps = arg("--profiler-reps", min(reps, 12))
    rec = ctypes.CDLL(None).streamlint_recording
    step, loop = train_workload(), tiny_workload()
    for _ in range(10):
        step()
        loop()
    work = {"train_ms": (step, 40), "tiny_ms": (loop, 20)}
    res = {c: {w: [] for w in work} for c in ["paused", "full", "host_only", "paused_again", "paused2", "profiler"]}
    modes = {"paused": 0, "full": 1, "host_only": 2, "paused_again": 0}
    order = list(modes)
    for r in range(reps):
        for c in order[r % 4:] + order[:r % 4]:
            rec(modes[c])
            step()
            loop()
            for w, (fn, n) in work.items():
                res[c][w].append(block(fn, n))
    rec(0)
    from torch.profiler import ProfilerActivity, profile
    for r in range(preps):
        for c in (["paused2", "profiler"] if r % 2 == 0 else ["profiler", "paused2"]):
            for w, (fn, n) in work.items():
                if c == "profiler":
                    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
                        res[c][w].append(block(fn, n))
                else:
                    res[c][w].append(block(fn, n))
    summary = {}
    for w in work:
        summary[w] = {"paused_median_ms": statistics.median(res["paused"][w])}
        for c, base in [("full", "paused"), ("host_only", "paused"), ("paused_again", "paused"),
                        ("profiler", "paused2")]:
            paired = sorted(100 * (v / b - 1) for v, b in zip(res[c][w], res[base][w]))
            q = len(paired) // 4
            summary[w][c] = {"median_ms": statistics.median(res[c][w]),
                             "median_paired_slowdown_pct": round(statistics.median(paired), 2),
                             "paired_iqr_pct": [round(paired[q], 2), round(paired[-q - 1], 2)]}
    print(json.dumps({"reps": reps, "profiler_reps": preps, "summary": summary}, indent=1))
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump({"reps": reps, "profiler_reps": preps, "raw": res, "summary": summary}, f, indent=1)


if __name__ == "__main__":
    main()
