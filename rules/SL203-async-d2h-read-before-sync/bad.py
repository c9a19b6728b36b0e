import torch


def sample(logits: torch.Tensor):
    host = logits.to("cpu", non_blocking=True)
    tokens = host.tolist()  # expect: SL203
    return tokens


def into_pinned(x: torch.Tensor, n: int):
    pinned = torch.empty(n, pin_memory=True)
    pinned.copy_(x, non_blocking=True)
    print(pinned)  # expect: SL203
