# The gather stream is forked once, before the loop, and then allocates a buffer on every
# iteration: the buffer of iteration i, used on the current stream and freed at the end of the
# iteration, goes back to the gather stream's pool, and iteration i+1 allocates there again with
# no fork in between: the current stream may still be reading the block.
import torch
import torch.distributed as dist


class LayerGather:
    def __init__(self, world):
        self.world = world
        self.ag_stream = torch.cuda.Stream()

    def run(self, shards, x):
        self.ag_stream.wait_stream(torch.cuda.current_stream())
        for shard in shards:
            with torch.cuda.stream(self.ag_stream):
                full = torch.empty(shard.numel() * self.world, device="cuda", dtype=shard.dtype)
                dist.all_gather_into_tensor(full, shard)
            torch.cuda.current_stream().wait_stream(self.ag_stream)
            x = x @ full.view(x.shape[-1], -1)  # expect: SL201
        return x
