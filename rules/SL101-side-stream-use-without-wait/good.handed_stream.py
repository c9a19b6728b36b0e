# bad.handed_stream.py with the wait before the call; and a helper that orders the stream it is
# handed itself (it waits first), which owns that stream's protocol.
import torch

from .comm import gather_into, make_context


def all_gather_matmul(shard: torch.Tensor, weight: torch.Tensor, ctx):
    ctx.gather_stream.wait_stream(torch.cuda.current_stream())
    gather_into(shard, ctx.buffers, ctx.gather_stream)
    out = torch.matmul(ctx.buffers[0], weight)
    torch.cuda.current_stream().wait_stream(ctx.gather_stream)
    return out


def copy_on(stream: torch.cuda.Stream, dst: torch.Tensor, src: torch.Tensor):
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        dst.copy_(src, non_blocking=True)


def stage(x: torch.Tensor, staging: torch.Tensor, ctx):
    copy_on(ctx.copy_stream, staging, x * 2)
    torch.cuda.current_stream().wait_stream(ctx.copy_stream)
    return staging


def build_context(a: torch.Tensor, b: torch.Tensor):
    # Streams handed over to be kept (a context that runs on them later): the function runs no
    # protocol on them here, nothing was queued on them yet.
    gather_stream = torch.cuda.Stream()
    x = a * 2
    ctx = make_context(x, b, gather_stream=gather_stream, gemm_stream=torch.cuda.Stream())
    return ctx
