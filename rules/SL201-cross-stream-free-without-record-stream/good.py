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
