"""One measurement process for run_overhead.py: times a training step and a launch-bound loop of
tiny ops (steady state, after warm-up) and prints JSON. `--profiler` wraps the timed loops in
torch.profiler (CPU + CUDA), the peer we compare against."""
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


def main():
    use_profiler = "--profiler" in sys.argv
    step, loop = train_workload(), tiny_workload()
    for _ in range(10):  # warm-up: allocator pools, cuBLAS handles, autograd graph
        step()
        loop()
    torch.cuda.synchronize()
    ctx = contextlib.nullcontext()
    if use_profiler:
        from torch.profiler import ProfilerActivity, profile
        ctx = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    with ctx:
        train_ms = timed_blocks(step, 5, 40)
        tiny_ms = timed_blocks(loop, 5, 20)
    print(json.dumps({"train_ms": train_ms, "tiny_ms": tiny_ms}))


if __name__ == "__main__":
    main()
