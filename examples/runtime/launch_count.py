"""Kernel launches through every path torch uses: ATen (__cudaLaunchKernel), cuBLAS/cuDNN (static
cudart -> driver pointers from cuGetProcAddress) and torch.compile/Triton (cuLaunchKernel).

    python3 launch_count.py            # plain run: record it with `streamlint run`
    python3 launch_count.py --profile  # the same work under torch.profiler; prints its kernel count

streamlint's recorded launches for the plain run must equal the profiler's kernel count."""
import sys
import time

import torch
import torch.nn as nn


def build():
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Flatten(),
        nn.Linear(16 * 32 * 32, 256), nn.ReLU(), nn.Linear(256, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    @torch.compile
    def fused(x):
        return torch.sin(x) * torch.cos(x) + x

    return model, opt, fused


def steps(model, opt, fused, n):
    x = torch.randn(64, 3, 32, 32, device="cuda")
    y = torch.randint(0, 10, (64,), device="cuda")
    for _ in range(n):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        fused(x)
    torch.cuda.synchronize()


def main():
    model, opt, fused = build()
    steps(model, opt, fused, 1)  # compiles; every launch from here on is counted by both tools
    torch.cuda.synchronize()
    if "--profile" in sys.argv:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            steps(model, opt, fused, 10)
        kernels = [e for e in prof.events()
                   if e.device_type == torch.autograd.DeviceType.CUDA
                   and not e.name.startswith(("Memcpy", "Memset"))
                   # GPU-side user annotations (e.g. "Optimizer.step#SGD.step") are not kernels
                   and not getattr(e, "is_user_annotation", False)]
        print(f"profiler kernels: {len(kernels)}")
        if "--names-out" in sys.argv:
            import collections
            import json
            names = collections.Counter(e.name for e in kernels)
            with open(sys.argv[sys.argv.index("--names-out") + 1], "w") as f:
                json.dump(names, f, indent=1)
    else:
        # CLOCK_MONOTONIC, the recorder's clock: the launches between these are the ones counted.
        t0 = time.monotonic_ns()
        steps(model, opt, fused, 10)
        t1 = time.monotonic_ns()
        print(f"window: {t0} {t1}")


if __name__ == "__main__":
    main()
