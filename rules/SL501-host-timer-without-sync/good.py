import time
import torch

a = torch.randn(256, 256, device="cuda")
torch.cuda.synchronize()
start = time.time()
for i in range(100):
    c = torch.mm(a, a)
torch.cuda.synchronize()
end = time.time()


def event_timed(x: torch.Tensor):
    begin = torch.cuda.Event(enable_timing=True)
    done = torch.cuda.Event(enable_timing=True)
    t0 = time.time()
    begin.record()
    y = torch.relu(x)
    done.record()
    done.synchronize()
    return time.time() - t0


def sync_helper():
    torch.cuda.synchronize()


def host_only(n):
    t0 = time.time()
    total = sum(range(n))
    return time.time() - t0, total


def synced_through_call(x: torch.Tensor):
    t0 = time.time()
    y = x * 2
    sync_helper()
    return time.time() - t0
