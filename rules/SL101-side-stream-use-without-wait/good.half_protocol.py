# bad.half_protocol.py with both halves: the side stream waits before the region, the current
# stream joins it after.
import torch


def shared_expert(hidden: torch.Tensor, expert: torch.nn.Module, side: torch.cuda.Stream):
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out = expert(hidden * 0.5)
    torch.cuda.current_stream().wait_stream(side)
    return out


def upload(batch: torch.Tensor, copy: torch.cuda.Stream):
    # Host data copied in: nothing on the GPU to wait for before the region.
    with torch.cuda.stream(copy):
        dev = batch.pin_memory().to("cuda", non_blocking=True)
    torch.cuda.current_stream().wait_stream(copy)
    return dev


class NormalizingPrefetcher:
    # `self.mean` is made once by the constructor: set-up long done before any region runs, not
    # data handed over per step (timm's loader shape).
    def __init__(self, loader, mean):
        self.loader = loader
        self.mean = torch.tensor(mean, device="cuda").view(1, 3, 1, 1)

    def __iter__(self):
        stream = torch.cuda.Stream()
        for batch in self.loader:
            with torch.cuda.stream(stream):
                batch = batch.cuda(non_blocking=True)
                batch = batch.float().sub_(self.mean)
            torch.cuda.current_stream().wait_stream(stream)
            batch.record_stream(torch.cuda.current_stream())
            yield batch


def backward_on_side(loss: torch.Tensor, side: torch.cuda.Stream):
    # A backward on a side stream needs no wait for its loss: autograd runs each backward op on
    # its forward op's stream and orders the gradient seed itself (SL401 is about its cost).
    with torch.cuda.stream(side):
        loss.backward()
    torch.cuda.current_stream().wait_stream(side)
