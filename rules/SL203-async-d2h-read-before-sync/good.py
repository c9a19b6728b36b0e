import torch


def sample(logits: torch.Tensor):
    host = logits.to("cpu", non_blocking=True)
    done = torch.cuda.Event()
    done.record()
    done.synchronize()
    return host.tolist()


def blocking(logits: torch.Tensor):
    host = logits.to("cpu")
    return host.tolist()


def synced(x: torch.Tensor, n: int):
    pinned = torch.empty(n, pin_memory=True)
    pinned.copy_(x, non_blocking=True)
    torch.cuda.synchronize()
    print(pinned)
