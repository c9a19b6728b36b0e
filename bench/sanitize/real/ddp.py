"""DDP on one GPU (a process group of one rank over NCCL) with gradient_as_bucket_view=True: the
gradients are views into the reducer's buckets, all-reduced on NCCL's stream; the reducer makes
the default stream wait for the all-reduce through the CUDA-aware future of its comm hook. With
`--hook allreduce` the same all-reduce is a Python comm hook (`work.get_future().then(...)`, as
torch's allreduce_hook); the mutant
`future-without-events` returns a plain future instead, so the optimizer's reads of the buckets
are no longer ordered after NCCL's writes.

    python ddp.py --steps 200 [--hook none|allreduce] [--mutant future-without-events] [--time]
"""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from common import StepTimer, args, init_nccl_world1

MUTANTS = {"future-without-events": None}  # dropped in the hook below


def extra(p):
    p.add_argument("--hook", default="none", choices=["none", "allreduce"])
    p.add_argument("--width", type=int, default=1024)


a = args(MUTANTS, extra)
dist = init_nccl_world1()


def allreduce_hook(state, bucket):
    buf = bucket.buffer()
    work = dist.all_reduce(buf, async_op=True)
    if a.mutant == "future-without-events":
        fut = torch.futures.Future()  # no devices: carries no CUDA event of NCCL's stream
        fut.set_result(buf)
        return fut
    # CUDA-aware (as torch's own allreduce_hook): the reducer's wait joins NCCL's stream
    return work.get_future().then(lambda fut: fut.value()[0])


torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(a.width, 4 * a.width), nn.GELU(), nn.Linear(4 * a.width, a.width))
                        for _ in range(4)], nn.Linear(a.width, 1)).cuda()
ddp = DDP(model, device_ids=[0], gradient_as_bucket_view=True, bucket_cap_mb=8)
if a.hook == "allreduce" or a.mutant:
    ddp.register_comm_hook(None, allreduce_hook)
opt = torch.optim.AdamW(ddp.parameters(), lr=1e-4)
timer = StepTimer(a)
for step in range(a.steps):
    x = torch.randn(64, a.width, device="cuda")
    loss = ddp(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=False)  # the bucket views stay (gradient_as_bucket_view)
    timer.step(step)
print(f"ddp hook={a.hook} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
