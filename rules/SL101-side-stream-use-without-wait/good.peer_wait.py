# bad.peer_wait.py with the wait in both functions of the protocol.
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
        self.comm.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.comm):
            dist.reduce_scatter_tensor(out, grads)
        torch.cuda.current_stream().wait_stream(self.comm)
