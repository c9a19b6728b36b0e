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


def parameter_after_the_usual_wait(a: torch.Tensor):
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        c = a * 2
    torch.cuda.current_stream().wait_stream(side)
    return c


def upload_only(batch, device):
    # Copies from the host read nothing the current stream produces: no wait needed.
    with torch.cuda.stream(side):
        x = batch.to(device, non_blocking=True)
    return x


class Comm:
    def __init__(self):
        self.stream = torch.cuda.Stream()

    def broadcast(self):
        torch.distributed.broadcast(self.flat, 0)

    def step(self):
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            self.broadcast()


def synchronized(n: int):
    x = torch.randn(n, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        y = x * 2
    return y
