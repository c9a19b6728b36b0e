"""Data-parallel training as N ranks, for the multi-rank report (issue 14).

    streamlint run -- torchrun --nproc-per-node 2 examples/ranks/ddp_train.py [options]

--overlap ddp       DistributedDataParallel: bucketed all-reduce on NCCL's stream, overlapping the
                    backward pass (the good shape: little communication left exposed).
--overlap none      every gradient all-reduced after backward, one call each, on the compute
                    stream's critical path (the bad shape: all communication exposed).
--slow-rank R       rank R sleeps --slow-ms every step before its backward (a straggler: the others
                    wait for it in the first all-reduce of each step).
--backend           nccl (default) or gloo (CPU transport; runs where NCCL refuses two ranks on one GPU).
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

ap = argparse.ArgumentParser()
ap.add_argument("--backend", default="nccl")
ap.add_argument("--overlap", choices=["ddp", "none"], default="ddp")
ap.add_argument("--steps", type=int, default=100)
ap.add_argument("--width", type=int, default=2048)
ap.add_argument("--layers", type=int, default=8)
ap.add_argument("--slow-rank", type=int, default=-1)
ap.add_argument("--slow-ms", type=float, default=20.0)
a = ap.parse_args()

dist.init_process_group(a.backend)
rank = dist.get_rank()
device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")) % torch.cuda.device_count())
torch.cuda.set_device(device)
torch.manual_seed(0)
model = nn.Sequential(*[m for _ in range(a.layers) for m in (nn.Linear(a.width, a.width), nn.GELU())]).to(device)
if a.overlap == "ddp":
    model = DistributedDataParallel(model, device_ids=[device.index] if a.backend == "nccl" else None,
                                    bucket_cap_mb=8)
opt = torch.optim.SGD(model.parameters(), lr=1e-4)
x = torch.randn(256, a.width, device=device)

for step in range(a.steps):
    loss = model(x).square().mean()
    if rank == a.slow_rank:
        time.sleep(a.slow_ms / 1e3)  # the straggler's extra host work
    loss.backward()
    if a.overlap == "none":
        for p in model.parameters():
            dist.all_reduce(p.grad)  # exposed: nothing left to overlap with
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
if rank == 0:
    print(f"done: {a.steps} steps, world size {dist.get_world_size()}, backend {a.backend}")
dist.destroy_process_group()
