"""Where the recorder's cost goes: an in-process interleaved A/B over recorder variants, for a
build configured with -DSL_INTERPOSER_KNOBS=ON (it exports streamlint_tune):

    LD_PRELOAD=build/exp/lib/libstreamlint_interposer.so SL_OUT_DIR=/tmp/k \\
        python3 bench/interposer/knobs_ab.py [--reps 16] [--json OUT]

Every repetition runs each variant once, in an order rotated by one per repetition; each variant
is compared with the paused recorder of the same repetition (median of paired slowdowns). Two
paused variants ("paused", "paused_again") show the noise floor.
Knob keys (Cupti.cpp, streamlint_tune): 0 Python line, 1 TSC hook clock, 2 kernel names,
4 CUPTI kinds mask (kernel, memcpy, memset), 5 pooled pre-zeroed activity buffers, 6 buffer KiB,
7 CUPTI flush period. (Key 3, CUPTI anchors, is gone with the anchors themselves.) "full"
variants time the GPU continuously (streamlint_recording(3)). Results on the H200 are in
README.md."""
import ctypes
import json
import statistics
import sys
import time

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from overhead_worker import block_ms, tiny_workload, train_workload  # noqa: E402

BASE = {0: 1, 1: 0, 2: 1, 4: 0x7, 5: 0, 6: 2048}  # the recorder before this study
VARIANTS = [  # name, mode (0 paused, 3 full, 2 host only), knob changes against BASE
    ("paused", 0, {}),
    ("paused_again", 0, {}),
    ("host", 2, {}),
    ("host_tsc", 2, {1: 1}),
    ("host_tsc_nopy", 2, {1: 1, 0: 0}),
    ("host_tsc_nopy_nonames", 2, {1: 1, 0: 0, 2: 0}),
    ("full", 3, {}),
    ("full_tsc", 3, {1: 1}),
    ("full_tsc_pool", 3, {1: 1, 5: 1}),
    ("full_tsc_pool_kernelonly", 3, {1: 1, 5: 1, 4: 0x1}),
    ("full_tsc_pool_buf8m", 3, {1: 1, 5: 1, 6: 8192}),
]


def main():
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 16
    lib = ctypes.CDLL(None)
    rec, tune = lib.streamlint_recording, lib.streamlint_tune
    tune.restype = ctypes.c_long
    step, loop = train_workload(), tiny_workload()
    for _ in range(10):
        step()
        loop()
    work = {"train_ms": (step, 40), "tiny_ms": (loop, 20)}
    res = {v[0]: {w: [] for w in work} for v in VARIANTS}

    def apply(mode, knobs):
        rec(0)  # flush and disable first: kinds and buffers change only while CUPTI is off
        torch.cuda.synchronize()
        for k, v in {**BASE, **knobs}.items():
            tune(k, v)
        rec(mode)
        step()  # untimed: CUPTI's first buffers, caches
        loop()

    t_start = time.time()
    for r in range(reps):
        order = VARIANTS[r % len(VARIANTS):] + VARIANTS[:r % len(VARIANTS)]
        for name, mode, knobs in order:
            apply(mode, knobs)
            for w, (fn, n) in work.items():
                res[name][w].append(block_ms(fn, n))
    apply(0, {})
    summary = {}
    for w in work:
        summary[w] = {}
        for name, _, _ in VARIANTS:
            paired = sorted(100 * (v / b - 1) for v, b in zip(res[name][w], res["paused"][w]))
            q = len(paired) // 4
            summary[w][name] = {"median_ms": round(statistics.median(res[name][w]), 4),
                                "paired_pct": round(statistics.median(paired), 2),
                                "iqr_pct": [round(paired[q], 2), round(paired[-q - 1], 2)]}
    print(json.dumps({"reps": reps, "seconds": round(time.time() - t_start, 1), "summary": summary}, indent=1))
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump({"reps": reps, "raw": res, "summary": summary}, f, indent=1)


if __name__ == "__main__":
    main()
