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
