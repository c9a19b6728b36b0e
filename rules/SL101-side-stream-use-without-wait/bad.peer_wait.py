# The module's own protocol: `all_gather` makes the comm stream wait for the current stream
# before its region; `reduce_scatter` forgot the wait, so the comm stream can read `grads` before
# the backward pass that produced them (on the current stream) has written them.
import torch
import torch.distributed as dist


class Communicator:
    def __init__(self):
        self.comm = torch.cuda.Stream()

    def all_gather(self, out: torch.Tensor, shard: torch.Tensor):
        self.comm.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.comm):
            dist.all_gather_into_tensor(out, shard)
        torch.cuda.current_stream().wait_stream(self.comm)

    def reduce_scatter(self, out: torch.Tensor, grads: torch.Tensor):
        with torch.cuda.stream(self.comm):  # expect: SL101
            dist.reduce_scatter_tensor(out, grads)
        torch.cuda.current_stream().wait_stream(self.comm)
