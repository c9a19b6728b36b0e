import torch
import torch.distributed as dist

side = torch.cuda.Stream()


def recorded(n: int):
    buf = torch.empty(n, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        dist.all_reduce(buf)
        buf.record_stream(side)
    del buf


def joined_before_free(n: int):
    buf = torch.empty(n, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        dist.all_reduce(buf)
    torch.cuda.current_stream().wait_stream(side)
    del buf


def escapes(n: int):
    out = torch.zeros(n, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out.add_(1)
    torch.cuda.current_stream().wait_stream(side)
    return out


def kept_in_a_list(n: int, pending: list):
    buf = torch.empty(n, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        dist.all_reduce(buf)
    pending.append(buf)  # kept: whoever drains `pending` waits before reuse


class Bucket:
    def flush(self, n: int):
        buf = torch.empty(n, device="cuda")
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            dist.all_reduce(buf)
        self.in_flight = buf  # kept on the object


def prefetch_weight(weight, host: torch.Tensor):
    consumer = torch.cuda.current_stream()  # taken before the region: the stream that reads it
    with torch.cuda.stream(side):
        weight.data = host.to("cuda", non_blocking=True)
        weight.data.record_stream(consumer)


def used_on_side(n: int):
    buf = torch.empty(n, device="cuda")  # allocated on the current stream
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        dist.all_reduce(buf)
        buf.record_stream(torch.cuda.current_stream())  # `side`: the stream that used it
    del buf


class Offloader:
    def __init__(self, device):
        self.device = device

    def _onload(self, tensor, host: torch.Tensor, consumer):
        tensor.data = host.to(self.device, non_blocking=True)
        tensor.data.record_stream(consumer)


def prefetch_on(stream, consumer, weight, host):
    with torch.cuda.stream(stream):
        weight.data = host.to("cuda", non_blocking=True)
        weight.data.record_stream(consumer)
