import torch

side = torch.cuda.Stream()


def waits_first(n: int):
    x = torch.randn(n, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = x * 2
    torch.cuda.current_stream().wait_stream(side)
    return y


def event_wait(a: torch.Tensor):
    b = torch.relu(a)
    ready = torch.cuda.Event()
    ready.record()
    with torch.cuda.stream(side):
        side.wait_event(ready)
        c = b * 3
    return c


def produced_in_region(a: torch.Tensor):
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        b = torch.relu(a)
        c = b + 1
    return c


def parameter_has_unknown_provenance(a: torch.Tensor):
    with torch.cuda.stream(side):
        c = a * 2
    return c


def synchronized(n: int):
    x = torch.randn(n, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        y = x * 2
    return y
