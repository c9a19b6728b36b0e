"""What the programs of bench/sanitize/real share: their arguments, the step timer, and the
run-time mutants.

A mutant removes one ordering edge: `--mutant skip:METHOD:FILE[:WHERE]` turns METHOD into a no-op
where it is called from a file whose path ends with FILE (WHERE: at that line, or in the function
of that name), so only the
library's own call is removed and every other caller keeps it. METHOD is one of
wait_stream, wait_event (torch.cuda.Stream), event_wait (torch.cuda.Event.wait) and
record_stream (torch.Tensor). Each program also names its own mutants (`--mutant NAME`), which
are such a skip or an edge dropped in the driver. `--census` counts who calls those methods
(printed at exit) to find the library's edges. Both print what they did to stderr, so a mutant
that never fired is seen, not taken for a missed race.
"""
import argparse
import atexit
import collections
import ctypes
import os
import statistics
import sys
import time

import torch

METHODS = {  # name -> (owner, attribute)
    "wait_stream": (torch.cuda.Stream, "wait_stream"),
    "wait_event": (torch.cuda.Stream, "wait_event"),
    "event_wait": (torch.cuda.Event, "wait"),
    "record_stream": (torch.Tensor, "record_stream"),
}


def args(mutants, extra=None, steps=200):
    """Parses the common flags; `mutants` maps a program's mutant names to a skip spec or to
    None (the driver drops the edge itself: it reads `a.mutant`)."""
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=steps)
    p.add_argument("--time", action="store_true", help="print the mean step time of the second half")
    p.add_argument("--mutant", default="", help="one of %s, or skip:METHOD:FILE[:WHERE]" % sorted(mutants))
    p.add_argument("--census", action="store_true")
    p.add_argument("--ab", type=int, default=0, metavar="K",
                   help="under `streamlint run`: recording paused / on in blocks of K steps (StepTimer)")
    p.add_argument("--ab-arms", default="", metavar="MODES",
                   help="with --ab: streamlint_recording modes (with part flags) to compare, e.g. 0,1,2,3,18,50; "
                        "each block of one follows a paused block")
    p.add_argument("--ab-rounds", type=int, default=0, metavar="R",
                   help="with --ab-arms: R rounds of every arm (sets --steps)")
    if extra:
        extra(p)
    a = p.parse_args()
    a.arms = [int(m) for m in a.ab_arms.split(",")] if a.ab_arms else []
    if a.arms and a.ab_rounds:  # the warm-up, R rounds of (paused, arm) per arm, a closing paused block
        a.steps = StepTimer.WARM + (2 * len(a.arms) * a.ab_rounds + 1) * a.ab
    spec = mutants.get(a.mutant, a.mutant) if a.mutant else None
    if a.mutant and a.mutant not in mutants and not a.mutant.startswith("skip:"):
        p.error(f"unknown mutant {a.mutant}")
    if spec:
        skip(*spec.split(":")[1:])
    if a.census:
        census()
    return a


def skip(method, file, where=None):
    owner, attr = METHODS[method]
    real = getattr(owner, attr)
    fired = collections.Counter()

    def maybe(self, *args, **kwargs):
        f = sys._getframe(1)
        if f.f_code.co_filename.endswith(file) and (where is None or str(f.f_lineno) == where
                                                      or f.f_code.co_name == where):
            fired[f"{f.f_code.co_filename}:{f.f_lineno}"] += 1
            return None  # the mutant: this edge is gone
        return real(self, *args, **kwargs)

    setattr(owner, attr, maybe)
    atexit.register(lambda: sys.stderr.write(f"mutant skip {method} from {file}: {dict(fired) or 'NEVER FIRED'}\n"))


def census():
    seen = collections.Counter()
    for method, (owner, attr) in METHODS.items():
        def wrap(real, method=method):
            def counted(self, *args, **kwargs):
                f = sys._getframe(1)
                seen[(method, f.f_code.co_filename, f.f_lineno, f.f_code.co_name)] += 1
                return real(self, *args, **kwargs)
            return counted
        setattr(owner, attr, wrap(getattr(owner, attr)))
    atexit.register(lambda: [sys.stderr.write(f"census {m} {f}:{l} ({fn}) x{n}\n")
                             for (m, f, l, fn), n in sorted(seen.items())])


class StepTimer:
    """Mean step time over the second half of the run (GPU synchronized at both ends only).

    With `--ab K` (under `streamlint run`), after 10 warm-up steps the recorder is paused and
    resumed in blocks of K steps through its `streamlint_recording(mode)` (0: hooks pass straight
    through; 1: as configured, e.g. `--sanitize`), in the order paused, on, on, paused, ... so
    that each pair of blocks is adjacent; the GPU is synchronized at each block's ends. Prints the
    median of the pairs' slowdowns (on / paused - 1) and its interquartile range: in one process,
    free of the ±10-25 % that separates processes on the GPU machine. What the recorder starts
    before user code (the caching allocator's trace under --sanitize) is not toggled.

    With `--ab-arms MODES` the blocks run paused, arm, paused, arm, ..., through the arms in an
    order rotated each round, and each arm's block is compared with the mean of the paused blocks
    either side of it: one line per arm. Arms are modes of `streamlint_recording` with the flags
    that leave a part out (16 Python lines, 32 native backtraces, 64 launch footprints), so one
    process says what each part costs; arm 0 is the A/A control (paused against paused)."""

    WARM = 10
    BASES = {0: "paused again (A/A)", 1: "as configured", 2: "host calls", 3: "continuous GPU timing"}
    FLAGS = ((16, "no Python lines"), (32, "no backtraces"), (64, "no footprints"))

    @classmethod
    def label(cls, mode):
        return ", ".join([cls.BASES.get(mode & 15, str(mode & 15))] + [t for f, t in cls.FLAGS if mode & f])

    def __init__(self, a):
        self.a, self.t0, self.n = a, None, 0
        if a.ab:
            self.switch = ctypes.CDLL(None).streamlint_recording  # AttributeError: not under `run`
            self.switch.argtypes = [ctypes.c_int]
            self.blocks, self.mode, self.tb = {0: [], 1: []}, 1, None
            if a.arms:
                rounds = (a.steps - self.WARM) // a.ab // (2 * len(a.arms))
                self.seq = [m for r in range(rounds) for arm in a.arms[r % len(a.arms):] + a.arms[:r % len(a.arms)]
                            for m in (0, arm)] + [0]
                self.times, self.done = [], False  # (mode, ms per step) of each block, in order

    def _arms(self, i):
        k, rest = divmod(i + 1 - self.WARM, self.a.ab)
        last = i == self.a.steps - 1
        if k < 0 or (rest and not last) or self.done:
            return
        torch.cuda.synchronize()
        now = time.perf_counter()
        if self.tb is not None and not rest:
            self.times.append((self.seq[k - 1], (now - self.tb) / self.a.ab * 1e3))
        if last or k >= len(self.seq):
            self.switch(1)
            self.done = True
            self._arms_summary()
            return
        self.switch(self.seq[k])
        self.tb = time.perf_counter()

    def _arms_summary(self):
        # The paused blocks are the even ones; arm block j is judged against blocks j-1 and j+1.
        per = collections.defaultdict(list)
        for j in range(1, len(self.times), 2):
            mode, t = self.times[j]
            base = [self.times[j - 1][1]] + ([self.times[j + 1][1]] if j + 1 < len(self.times) else [])
            per[mode].append((t, sum(base) / len(base)))
        paused = [t for j, (m, t) in enumerate(self.times) if j % 2 == 0]
        for mode in self.a.arms:
            pairs = sorted(t / b - 1 for t, b in per[mode])
            if not pairs:
                continue
            q = lambda f: pairs[min(len(pairs) - 1, int(f * len(pairs)))]
            print(f"ab arm {mode} ({self.label(mode)}): median {q(0.5) * 100:+.2f} % [IQR {q(0.25) * 100:+.2f}, "
                  f"{q(0.75) * 100:+.2f}] over {len(pairs)} pairs of {self.a.ab}-step blocks; paused "
                  f"{statistics.median(paused):.3f} ms, arm {statistics.median(t for t, _ in per[mode]):.3f} ms "
                  "per step (medians)", flush=True)

    def _ab(self, i):
        if self.a.arms:
            return self._arms(i)
        k, rest = divmod(i + 1 - self.WARM, self.a.ab)
        last = i == self.a.steps - 1
        if k < 0 or (rest and not last):
            return
        torch.cuda.synchronize()
        now = time.perf_counter()
        if self.tb is not None and not rest:
            self.blocks[self.mode].append((now - self.tb) / self.a.ab * 1e3)
        if last:
            pairs = sorted(on / off - 1 for off, on in zip(self.blocks[0], self.blocks[1]))
            if pairs:
                q = lambda f: pairs[min(len(pairs) - 1, int(f * len(pairs)))]
                print(f"ab recording on vs paused: median {q(0.5) * 100:+.1f} % [IQR {q(0.25) * 100:+.1f}, "
                      f"{q(0.75) * 100:+.1f}] over {len(pairs)} pairs of {self.a.ab}-step blocks; paused "
                      f"{statistics.median(self.blocks[0]):.3f} ms, on {statistics.median(self.blocks[1]):.3f} ms "
                      "per step (medians)", flush=True)
            self.switch(1)
            return
        self.mode = (0, 1, 1, 0)[k % 4]
        self.switch(self.mode)
        self.tb = time.perf_counter()

    def step(self, i):
        if self.a.ab:
            return self._ab(i)
        if not self.a.time:
            return
        if i == self.a.steps // 2:
            torch.cuda.synchronize()
            self.t0 = time.perf_counter()
        elif i == self.a.steps - 1 and self.t0 is not None:
            torch.cuda.synchronize()
            n = self.a.steps - 1 - self.a.steps // 2
            print(f"mean step {(time.perf_counter() - self.t0) / n * 1e3:.3f} ms over {n} steps", flush=True)


def init_nccl_world1():
    """One process group of one rank over NCCL (MASTER_ADDR/PORT from the environment)."""
    import torch.distributed as dist
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(29500 + os.getpid() % 1000))
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda", 0))
    return dist
