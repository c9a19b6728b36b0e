"""FSDP2 (`torch.distributed.fsdp.fully_shard`) on one GPU: a process group of one rank over NCCL,
an MLP of four blocks, each block and the root sharded. FSDP2 runs the all-gather copy-in, the
all-gather and the reduce-scatter on its own streams and orders them with wait_stream /
wait_event; SL904 must find nothing on it, and must find the race when one of those edges is
removed (--mutant).

    python fsdp2.py --steps 200 [--reshard 0|1] [--offload 0|1] [--mutant NAME] [--time]
"""
import torch
import torch.nn as nn
from common import StepTimer, args, init_nccl_world1

COLL = "torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py"
MUTANTS = {
    # the copy-out of the all-gathered parameters (default stream) waits for the all-gather's event
    "no-allgather-wait": f"skip:event_wait:{COLL}",
    "no-allgather-wait-event": f"skip:wait_event:{COLL}",
    # the reduce-scatter stream waits for the backward (the gradients) before its copy-in
    "no-reduce-scatter-wait": f"skip:wait_stream:{COLL}:foreach_reduce",
    # the all-gather stream waits for the copy-in stream (the all-gather's input)
    "no-copy-in-wait": f"skip:wait_stream:{COLL}:foreach_all_gather",
}


def extra(p):
    p.add_argument("--reshard", type=int, default=1, help="reshard_after_forward")
    p.add_argument("--offload", type=int, default=0, help="CPUOffloadPolicy")
    p.add_argument("--width", type=int, default=1024)


a = args(MUTANTS, extra)
dist = init_nccl_world1()
from torch.distributed.fsdp import CPUOffloadPolicy, OffloadPolicy, fully_shard  # noqa: E402

torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(a.width, 4 * a.width), nn.GELU(), nn.Linear(4 * a.width, a.width))
                        for _ in range(4)], nn.Linear(a.width, 1))
policy = CPUOffloadPolicy(pin_memory=True) if a.offload else OffloadPolicy()
for block in model[:4]:
    fully_shard(block, reshard_after_forward=bool(a.reshard), offload_policy=policy)
fully_shard(model, reshard_after_forward=bool(a.reshard), offload_policy=policy)  # moves to the GPU unless offloaded
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)  # on CPU parameters under offload
timer = StepTimer(a)
for step in range(a.steps):
    x = torch.randn(64, a.width, device="cuda")
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    timer.step(step)
print(f"fsdp2 reshard={a.reshard} offload={a.offload} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
