"""`torch.autograd.graph.save_on_cpu(pin_memory=True)`: every tensor autograd saves in the forward
goes to pinned host memory and comes back (non_blocking) in the backward; the batches come from
a copy stream (prefetch.py). SL904 must find nothing; the mutants drop one of the driver's
edges (prefetch.py).

    python save_on_cpu.py --steps 200 [--mutant no-batch-wait|no-batch-record-stream] [--time]
"""
import torch
import torch.nn as nn
from common import StepTimer, args
from prefetch import Prefetcher

a = args({"no-batch-wait": None, "no-batch-record-stream": None})
torch.manual_seed(0)
width = 1024
model = nn.Sequential(*[nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.LayerNorm(2 * width),
                                      nn.Linear(2 * width, width)) for _ in range(4)]).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
host = [(torch.randn(128, width).pin_memory(), torch.randn(128, width).pin_memory()) for _ in range(4)]
loader = Prefetcher(host, a.mutant)
timer = StepTimer(a)
for step in range(a.steps):
    x, y = loader.get()
    with torch.autograd.graph.save_on_cpu(pin_memory=True):
        loss = (model(x) - y).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    del x, y
    timer.step(step)
print(f"save_on_cpu loss {loss.item():.4f}", flush=True)
