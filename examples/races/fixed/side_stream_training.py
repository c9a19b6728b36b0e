"""A training loop that uses side streams correctly (SL904 must stay silent on it):
prefetch of the next batch on a copy stream (wait_stream + record_stream), a bucketed gradient
"all-reduce" on a comm stream (each bucket waits for the gradients; the optimizer waits for the
comm stream), and activation offload to pinned host memory on an offload stream and back.

    python side_stream_training.py --steps 2000 [--time]
"""
import argparse
import time

import torch
import torch.nn as nn

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=2000)
ap.add_argument("--width", type=int, default=512)
ap.add_argument("--time", action="store_true", help="print the mean step time of the last half")
a = ap.parse_args()

torch.manual_seed(0)
model = nn.Sequential(*[nn.TransformerEncoderLayer(a.width, 8, 4 * a.width, batch_first=True)
                        for _ in range(2)]).cuda()
head = nn.Linear(a.width, 1).cuda()
params = list(model.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=1e-4)
copy_stream, comm_stream, offload_stream = torch.cuda.Stream(), torch.cuda.Stream(), torch.cuda.Stream()
host_batches = [torch.randn(16, 64, a.width).pin_memory() for _ in range(4)]
host_act = torch.empty(16, 64, a.width).pin_memory()


def prefetch(i):
    with torch.cuda.stream(copy_stream):
        return host_batches[i % len(host_batches)].to("cuda", non_blocking=True)


def allreduce_buckets(grads, buckets=4):
    """A stand-in for NCCL on one GPU: each bucket is flattened, scaled and copied back on the
    comm stream after the comm stream waited for the backward pass."""
    comm_stream.wait_stream(torch.cuda.current_stream())
    size = (len(grads) + buckets - 1) // buckets
    with torch.cuda.stream(comm_stream):
        for b in range(0, len(grads), size):
            group = grads[b:b + size]
            flat = torch.cat([g.reshape(-1) for g in group])
            flat.mul_(1.0)
            off = 0
            for g in group:
                g.copy_(flat[off:off + g.numel()].view_as(g))
                off += g.numel()
    torch.cuda.current_stream().wait_stream(comm_stream)


next_batch = prefetch(0)
times = []
for step in range(a.steps):
    t0 = time.perf_counter()
    torch.cuda.current_stream().wait_stream(copy_stream)
    batch = next_batch
    batch.record_stream(torch.cuda.current_stream())
    next_batch = prefetch(step + 1)
    act = model[0](batch)
    # Offload the activation to the host and bring it back (as activation checkpointing to CPU does).
    offload_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(offload_stream):
        host_act.copy_(act.detach(), non_blocking=True)
        act.record_stream(offload_stream)
        back = host_act.to("cuda", non_blocking=True)
    out = head(model[1](act)).mean()
    opt.zero_grad(set_to_none=False)
    out.backward()
    allreduce_buckets([p.grad for p in params])
    opt.step()
    torch.cuda.current_stream().wait_stream(offload_stream)
    back.record_stream(torch.cuda.current_stream())
    check = back.sum()
    offload_stream.synchronize()  # host_act is rewritten next step: the copy back must be done
    if a.time:
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    if step % 500 == 0:
        print(f"step {step} loss {out.item():.4f} check {check.item():.1f}", flush=True)
if a.time:
    half = times[len(times) // 2:]
    print(f"mean step {1e3 * sum(half) / len(half):.3f} ms over {len(half)} steps")
