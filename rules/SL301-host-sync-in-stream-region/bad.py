import torch

side = torch.cuda.Stream()


def step(x: torch.Tensor):
    with torch.cuda.stream(side):
        y = torch.relu(x)
        total = y.sum().item()  # expect: SL301
        if y.max() > 10:  # expect: SL301
            y = y / 10
        host = y.cpu()  # expect: SL301
        idx = torch.nonzero(y)  # expect: SL301
        torch.cuda.synchronize()  # expect: SL301
        side.synchronize()  # expect: SL301


def _check(t: torch.Tensor):
    return float(t.norm())


def via_helper(x: torch.Tensor):
    with torch.cuda.stream(side):
        _check(x)  # expect: SL301
