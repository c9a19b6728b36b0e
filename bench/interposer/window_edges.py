"""What a GPU timing window costs at its edges, run under `streamlint run`:

    streamlint run --out /tmp/we -- python3 window_edges.py [--rounds 40] [--steps 12] [--json OUT]

The in-process A/B (inprocess_ab.py) prices a window as its share of "always" (duty x the
per-kernel cost). That misses any cost paid once per window: the switch calls themselves, or
CUPTI doing per-kernel or per-module work again for the first launches after it is enabled.
This times single calls around the switches: each round runs `--steps` calls host-only (mode 2),
switches GPU timing on (mode 3), runs `--steps` calls, switches back to host-only and runs
`--steps` more, synchronizing after every call; it reports the median time of each call by its
position after a switch, and of the switch calls themselves. A one-off cost shows as a first call
slower than the later ones of its phase."""
import ctypes
import json
import statistics
import sys
import time

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from overhead_worker import arg, tiny_workload, train_workload  # noqa: E402


def timed(fn):
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3


def main():
    rounds, steps = arg("--rounds", 40), arg("--steps", 12)
    rec = ctypes.CDLL(None).streamlint_recording
    work = {"train_ms": train_workload(), "tiny_ms": tiny_workload()}
    for _ in range(10):
        for fn in work.values():
            fn()
    phases = [("host_only", 2), ("always", 3), ("host_after", 2)]
    out = {}
    for w, fn in work.items():
        t = {p: [[] for _ in range(steps)] for p, _ in phases}
        switch = {p: [] for p, _ in phases}
        for _ in range(rounds):
            for p, mode in phases:
                torch.cuda.synchronize()
                switch[p].append(timed(lambda: rec(mode)))
                for i in range(steps):
                    t[p][i].append(timed(fn))
        out[w] = {p: {"switch_ms": round(statistics.median(switch[p]), 4),
                      "switch_max_ms": round(max(switch[p]), 3),
                      "by_position_ms": [round(statistics.median(c), 4) for c in t[p]]}
                  for p, _ in phases}
        for p, _ in phases:
            pos = out[w][p]["by_position_ms"]
            steady = statistics.median(pos[steps // 2:])
            out[w][p]["first_call_extra_ms"] = round(pos[0] - steady, 4)
            out[w][p]["first_three_extra_ms"] = round(sum(pos[:3]) - 3 * steady, 4)
    rec(1)
    print(json.dumps(out, indent=1))
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
