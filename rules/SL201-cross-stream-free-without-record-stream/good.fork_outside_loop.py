# bad.fork_outside_loop.py with the fork inside the loop: each allocation on the gather stream
# comes after a fork that waits for the current stream's use of the previous buffer.
import torch
import torch.distributed as dist


class LayerGather:
    def __init__(self, world):
        self.world = world
        self.ag_stream = torch.cuda.Stream()

    def run(self, shards, x):
        for shard in shards:
            self.ag_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.ag_stream):
                full = torch.empty(shard.numel() * self.world, device="cuda", dtype=shard.dtype)
                dist.all_gather_into_tensor(full, shard)
            torch.cuda.current_stream().wait_stream(self.ag_stream)
            x = x @ full.view(x.shape[-1], -1)
        return x
