# An unsharding step that forks its all-gather stream from the current one on every call before
# it allocates there: `full`, made on the gather stream and freed when the step returns, goes back
# to that stream's pool, and the next allocation there comes after the next call's fork, which
# waits for everything the current stream queued here, the reads of `full` included.
import torch
import torch.distributed as dist


class Unsharder:
    def __init__(self, world):
        self.world = world
        self.ag_stream = torch.cuda.Stream()

    def step(self, shard, w):
        self.ag_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.ag_stream):
            full = torch.empty(shard.numel() * self.world, device="cuda", dtype=shard.dtype)
            dist.all_gather_into_tensor(full, shard)
        torch.cuda.current_stream().wait_stream(self.ag_stream)
        return full.view(-1, w.shape[0]) @ w
