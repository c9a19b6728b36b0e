"""The recorder's cost per call, by part, on any machine (no GPU needed: without a driver the
calls fail fast and are still recorded). Run under `streamlint run`:

    streamlint run --out /tmp/pc -- python3 parts_cost.py [LIBCUDART]

A query (no backtrace) and a stream sync (a blocking call: backtrace) are called from under D
Python frames of a file the recorder walks past (`.../site-packages/...`, as torch's are), with
the parts switched through streamlint_recording: host calls (2), no Python line (+16), no
backtrace (+32). Prints ns per call above the paused recorder, median of 7 rotated repetitions
of 5,000 calls. On a GPU an idle stream's sync returns at once, so the backtrace shows in full
here; in a training step it runs before the wait (Hooks.h)."""
import ctypes
import statistics
import sys
import time

cudart = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else "libcudart.so")
rec = ctypes.CDLL(None).streamlint_recording  # AttributeError: not under `streamlint run`
rec.argtypes = [ctypes.c_int]
SRC = "def deep(n, f, k):\n    if n == 0:\n        for _ in range(k):\n            f(None)\n        return\n    deep(n - 1, f, k)\n"
library = {}
exec(compile(SRC, "/usr/lib/python3/site-packages/fake_library.py", "exec"), library)
MODES = (2, 2 | 16, 2 | 32, 2 | 16 | 32)
N = 5000


def user(depth, f, k):
    library["deep"](depth, f, k)


for depth in (0, 10, 40):
    for name, f in (("cudaEventQuery", cudart.cudaEventQuery), ("cudaStreamSynchronize", cudart.cudaStreamSynchronize)):
        ns = {m: [] for m in (0,) + MODES}
        for rep in range(7):
            for m in ((0,) + MODES)[rep % 5:] + ((0,) + MODES)[:rep % 5]:
                rec(m)
                user(depth, f, 100)  # untimed: the first calls after a switch
                t = time.perf_counter()
                user(depth, f, N)
                ns[m].append((time.perf_counter() - t) / N * 1e9)
                time.sleep(0.02)  # the writer drains the ring: no record is dropped (cheaper) while timed
        base = statistics.median(ns[0])
        print(f"depth {depth:2d} {name}: paused {base:.0f} ns/call; " +
              ", ".join(f"mode {m}: {statistics.median(ns[m]) - base:+.0f}" for m in MODES), flush=True)
rec(1)
