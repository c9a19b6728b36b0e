"""One measurement process for run_overhead.py: times a training step, a launch-bound loop of
tiny ops and a transformer training step (steady state, after warm-up) and prints JSON.
`--profiler` wraps the timed loops in torch.profiler (CPU + CUDA), the peer we compare against;
`--workloads train,tiny,transformer` picks which are timed."""
import contextlib
import json
import statistics
import sys
import time

import torch
import torch.nn as nn


def arg(name, default):
    """The value after `name` on the command line, of `default`'s type, or `default`."""
    return type(default)(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def block_ms(fn, n):
    """Mean ms per call of fn over n calls, synchronizing around them."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / n


def timed_blocks(fn, blocks, per_block):
    """Median over `blocks` of the mean time (ms) per call of fn, synchronizing per block."""
    return statistics.median(block_ms(fn, per_block) for _ in range(blocks))


def train_workload():
    torch.manual_seed(0)
    layers = []
    for _ in range(4):
        layers += [nn.Linear(2048, 2048), nn.GELU()]
    model = nn.Sequential(*layers, nn.Linear(2048, 10)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(512, 2048, device="cuda")
    y = torch.randint(0, 10, (512,), device="cuda")

    def step():
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return step


def tiny_workload():
    x = torch.ones(1024, device="cuda")

    def loop():
        nonlocal x
        for _ in range(200):
            x = x * 1.0001 + 0.0001
    return loop


def transformer_workload():
    """A GPT-style training step: 6 pre-norm encoder layers (d 1024, 16 heads), batch 8 x 512
    tokens, bf16 autocast, AdamW — the "transformer training step" of issue 13's targets."""
    torch.manual_seed(0)
    width = 1024
    layers = [nn.TransformerEncoderLayer(width, 16, 4 * width, batch_first=True, norm_first=True)
              for _ in range(6)]
    model = nn.Sequential(*layers, nn.Linear(width, width)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(8, 512, width, device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().square().mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return step


WORKLOADS = {"train": (train_workload, 40), "tiny": (tiny_workload, 20), "transformer": (transformer_workload, 10)}


def main():
    use_profiler = "--profiler" in sys.argv
    names = arg("--workloads", "train,tiny").split(",")
    fns = {n: WORKLOADS[n][0]() for n in names}
    for _ in range(10):  # warm-up: allocator pools, cuBLAS handles, autograd graph
        for fn in fns.values():
            fn()
    torch.cuda.synchronize()
    ctx = contextlib.nullcontext()
    if use_profiler:
        from torch.profiler import ProfilerActivity, profile
        ctx = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    with ctx:
        out = {f"{n}_ms": timed_blocks(fn, 5, WORKLOADS[n][1]) for n, fn in fns.items()}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
