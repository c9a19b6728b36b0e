"""FSDP2 (`torch.distributed.fsdp.fully_shard`) on one GPU: a process group of one rank over NCCL,
an MLP of four blocks, each block and the root sharded. FSDP2 runs the all-gather copy-in, the
all-gather and the reduce-scatter on its own streams and orders them with wait_stream /
wait_event; SL904 must find nothing on it, and must find the race when one of those edges is
removed (--mutant).

With one rank FSDP2 all-gathers nothing (it copies the sharded parameters on the default stream
and queues no work on its all-gather streams), so the all-gather mutants cannot race there.
`--fake-world N` runs it as rank 0 of N over torch's fake process group (collectives return at
once and move no data: the numbers are meaningless, the streams' work and ordering are FSDP2's
own), so the copy-in, all-gather and copy-out streams are used as on N GPUs.

    python fsdp2.py --steps 200 [--reshard 0|1] [--offload 0|1] [--fake-world N] [--mutant NAME] [--time]
"""
import torch
import torch.nn as nn
from common import StepTimer, args, init_nccl_world1

COLL = "torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py"
GROUP = "torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py"
MUTANTS = {
    # the copy-out of the all-gathered parameters (default stream) waits for the all-gather's event
    "no-allgather-wait": f"skip:event_wait:{COLL}",
    "no-allgather-wait-event": f"skip:wait_event:{COLL}",
    # the reduce-scatter stream waits for the backward (the gradients) before its copy-in
    "no-reduce-scatter-wait": f"skip:wait_stream:{COLL}:foreach_reduce",
    # the all-gather stream waits for the copy-in stream (the all-gather's input)
    "no-copy-in-wait": f"skip:wait_stream:{COLL}:foreach_all_gather",
    # the all-gather streams wait for the copy-out's event before the next all-gather reuses
    # the last one's output memory (FSDPParamGroup._wait_all_gather_streams_on_event)
    "no-allgather-streams-wait": f"skip:wait_event:{GROUP}:_wait_all_gather_streams_on_event",
}


def extra(p):
    p.add_argument("--reshard", type=int, default=1, help="reshard_after_forward")
    p.add_argument("--offload", type=int, default=0, help="CPUOffloadPolicy")
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--fake-world", type=int, default=0, help="rank 0 of N over the fake process group")


a = args(MUTANTS, extra)
if a.fake_world:
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore  # registers the "fake" backend

    torch.cuda.set_device(0)
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=a.fake_world)
else:
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
print(f"fsdp2 reshard={a.reshard} offload={a.offload} world={dist.get_world_size()} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
