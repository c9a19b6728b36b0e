"""In-process interleaved A/B of the recorder's cost, run under `streamlint run`:

    streamlint run --out /tmp/ab -- python3 inprocess_ab.py [--reps 12] [--profiler-reps 8]
                     [--block-s 1.9] [--fine-rounds 250] [--configs paused,sampled,...] [--json OUT]
                     [--workloads train,tiny,transformer]

Process-to-process noise on the GPU machine (±25 % on a launch-bound loop) hides a few-percent
effect, so the configurations alternate block by block inside one process, toggled through the
recorder's `streamlint_recording(mode)`: 0 = paused (hooks pass straight through; the library
stays loaded), 1 = as configured (host calls + GPU timing in sampled windows: the default),
3 = host calls + continuous GPU timing (SL_GPU_TIMING=always), 2 = host calls only.
Phase 1 rotates paused/sampled/always/host-only/paused again (the second paused block is an A/A
control: its "slowdown" is the noise floor), one workload at a time; one untimed call follows
every switch (except into sampled mode, whose window opens at the next call: that cost is part
of what is measured), so blocks time the steady state. A block runs for --block-s seconds, just
under one sampling period (1.9 s for the default 100 ms of every 2 s; gpu_windows.sh runs the
same 5 % duty on a 10x shorter period, 10ms/200ms with 0.19-s blocks, to fit 60 repetitions):
a sampled block opens one window, so it pays the window's share as a long run does.
Phase 2 measures the parts of that cost finely: paused/host-only/always/paused again rotate in
blocks of a few steps (tens of ms), hundreds of rounds, so that the machine's slow drifts and
seconds-long bursts (±10 % between 2-s blocks on the H200 VMs) cancel in the pairing. From it,
the expected cost of sampled timing = host-only + duty x (always - host-only), duty = the share
of time in windows (the log's Window records; 100 ms of 2 s by default).
Phase 3 rotates paused/torch.profiler (the profiler takes CUPTI for good, so it comes last).
`--configs` keeps some of phase 1's configurations (the first is the baseline), for a long direct
run of one: e.g. `--configs paused,sampled,paused_again --fine-rounds 0 --profiler-reps 0`.
Under `streamlint run --sanitize` the recording modes include sanitize's per-call work (launch
footprints), so paused vs host_only there prices it (the allocator trace, started before user
code, is not toggled: about +1 %, FACTS.md).
The process-level A/B is run_overhead.py."""
import ctypes
import json
import statistics
import sys
import time

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from overhead_worker import WORKLOADS, arg, block_ms  # noqa: E402


def paired(values, base):
    p = sorted(100 * (v / b - 1) for v, b in zip(values, base))
    q = len(p) // 4
    return {"median_ms": statistics.median(values), "median_paired_slowdown_pct": round(statistics.median(p), 2),
            "paired_iqr_pct": [round(p[q], 2), round(p[-q - 1], 2)]}


def block(fn, seconds):
    """Mean ms per call of fn over a block of about `seconds`."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    n = 0
    while time.perf_counter() - t0 < seconds:
        fn()
        n += 1
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / n


def main():
    reps = arg("--reps", 12)
    preps = arg("--profiler-reps", min(reps, 8))
    seconds = arg("--block-s", 1.9)
    rec = ctypes.CDLL(None).streamlint_recording
    work = {f"{w}_ms": WORKLOADS[w][0]() for w in arg("--workloads", "train,tiny").split(",")}
    for _ in range(10):
        for fn in work.values():
            fn()
    modes = {"paused": 0, "sampled": 1, "always": 3, "host_only": 2, "paused_again": 0}
    if "--configs" in sys.argv:
        modes = {c: modes[c] for c in arg("--configs", "").split(",")}
    res = {c: {w: [] for w in work} for c in list(modes) + ["paused2", "profiler"]}
    order = list(modes)
    for r in range(reps):
        for w, fn in work.items():
            for c in order[r % len(order):] + order[:r % len(order)]:
                rec(modes[c])
                if c != "sampled":  # its window opens at the next call: time that call too
                    fn()
                res[c][w].append(block(fn, seconds))
        print(f"rep {r + 1}/{reps}", file=sys.stderr, flush=True)
    fine_modes = {"paused": 0, "host_only": 2, "always": 3, "paused_again": 0}
    fine = {c: {w: [] for w in work} for c in fine_modes}
    per_block = {"train_ms": 5, "tiny_ms": 3, "transformer_ms": 2}
    order = list(fine_modes)
    for r in range(arg("--fine-rounds", 250)):
        for w, fn in work.items():
            for c in order[r % len(order):] + order[:r % len(order)]:
                rec(fine_modes[c])
                fn()
                fine[c][w].append(block_ms(fn, per_block[w]))
    rec(0)
    from torch.profiler import ProfilerActivity, profile
    for r in range(preps):
        for w, fn in work.items():
            for c in (["paused2", "profiler"] if r % 2 == 0 else ["profiler", "paused2"]):
                if c == "profiler":
                    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
                        res[c][w].append(block(fn, seconds))
                else:
                    res[c][w].append(block(fn, seconds))
    duty = 0.1 / 2.0  # the default schedule's share: 100 ms of every 2 s
    summary = {}
    for w in work:
        base = next(iter(modes))
        summary[w] = {f"{base}_median_ms": statistics.median(res[base][w])}
        for c in list(modes)[1:]:
            summary[w][c] = paired(res[c][w], res[base][w])
        if preps:
            summary[w]["profiler"] = paired(res["profiler"][w], res["paused2"][w])
        if not fine["paused"][w]:
            continue
        f = {c: paired(fine[c][w], fine["paused"][w]) for c in ["host_only", "always", "paused_again"]}
        host, always = (f[c]["median_paired_slowdown_pct"] for c in ["host_only", "always"])
        f["sampled_expected_pct"] = round(host + duty * (always - host), 2)
        summary[w]["fine"] = f
    print(json.dumps({"reps": reps, "profiler_reps": preps, "summary": summary}, indent=1))
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump({"reps": reps, "profiler_reps": preps, "raw": res, "fine_raw": fine, "summary": summary}, f, indent=1)


if __name__ == "__main__":
    main()
