import torch
import torch.distributed as dist

side = torch.cuda.Stream()


def reduce_and_drop(n: int):
    buf = torch.empty(n, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        dist.all_reduce(buf)
    del buf  # expect: SL201


def dies_at_return(n: int):
    tmp = torch.zeros(n, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        tmp.mul_(2)  # expect: SL201


def prefetch_weight(weight, host: torch.Tensor):
    with torch.cuda.stream(side):
        weight.data = host.to("cuda", non_blocking=True)
        # current_stream() here is `side`, where the block was allocated: a no-op record
        weight.data.record_stream(torch.cuda.current_stream())  # expect: SL201


class Offloader:
    def __init__(self, device):
        self.device = device
        self.accel = torch.cuda

    def _onload(self, tensor, host: torch.Tensor):
        # called inside the caller's side-stream region: records the region's own stream
        tensor.data = host.to(self.device, non_blocking=True)
        tensor.data.record_stream(self.accel.current_stream())  # expect: SL201


def prefetch_on(stream, weight, host):
    with torch.cuda.stream(stream):  # a stream passed in: compared by name
        weight.data = host.to("cuda", non_blocking=True)
        weight.data.record_stream(torch.cuda.current_stream())  # expect: SL201
