# A helper handed a side stream runs its GPU work there, with no `with torch.cuda.stream(...)` in
# sight: the call is a region of its own. The function joins the gather stream after (the
# current stream waits for it), yet never makes that stream wait first: the gather can read
# `shard` before the layer that produced it has run. `gather_stream` is known as a stream only
# from the join below the call: a name the file uses as a stream anywhere is one everywhere.
import torch

from .comm import gather_into


def all_gather_matmul(shard: torch.Tensor, weight: torch.Tensor, ctx):
    gather_into(shard, ctx.buffers, ctx.gather_stream)  # expect: SL101
    out = torch.matmul(ctx.buffers[0], weight)
    torch.cuda.current_stream().wait_stream(ctx.gather_stream)
    return out
