# bad.fork_without_join.py finished seven ways: the current stream joins the side stream before
# returning; a pipelined loop joins each step's side work at the top of the next step; the
# work's end is handed to the caller as an event; the protocol's own `wait()` joins it later;
# another method records an event on the stream that `wait()` synchronizes; the work is captured
# into a CUDA graph (it runs when the graph is replayed); the stream is the caller's argument
# (the caller holds it and joins it).
import torch


def gather_on(x: torch.Tensor, workspace: torch.Tensor, stream):
    with torch.cuda.stream(stream):
        workspace.copy_(x)


class GatherContext:
    def __init__(self):
        self.gather_stream = torch.cuda.Stream()
        self.workspace = torch.empty(1 << 20, device="cuda")


def gather_gemm(x: torch.Tensor, w: torch.Tensor, ctx: GatherContext):
    current = torch.cuda.current_stream()
    ctx.gather_stream.wait_stream(current)
    gather_on(x, ctx.workspace, ctx.gather_stream)
    y = x @ w
    current.wait_stream(ctx.gather_stream)
    return y


def pipelined(chunks, w: torch.Tensor, ctx: GatherContext):
    outs = []
    for c in chunks:
        torch.cuda.current_stream().wait_stream(ctx.gather_stream)
        ctx.gather_stream.wait_stream(torch.cuda.current_stream())
        gather_on(c, ctx.workspace, ctx.gather_stream)
        outs.append(c @ w)
    return outs


def gather_async(x: torch.Tensor, ctx: GatherContext):
    ctx.gather_stream.wait_stream(torch.cuda.current_stream())
    gather_on(x, ctx.workspace, ctx.gather_stream)
    done = ctx.gather_stream.record_event()
    return done


class Prefetcher:
    def __init__(self):
        self.copy_stream = torch.cuda.Stream()

    def prefetch(self, src: torch.Tensor):
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            self.buf = src.to("cuda", non_blocking=True)

    def wait(self):
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        return self.buf


def copy_on(stream: torch.cuda.Stream, dst: torch.Tensor, src: torch.Tensor):
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        dst.copy_(src, non_blocking=True)


class AsyncAverager:
    def __init__(self):
        self.stream = torch.cuda.Stream()
        self.done = None

    def start(self, grads: torch.Tensor):
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            grads.div_(2)

    def finish(self):
        with torch.cuda.stream(self.stream):
            self.done = torch.cuda.Event()
            self.done.record()

    def wait(self):
        self.done.synchronize()


def capture(step_fn, static_x: torch.Tensor):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    g = torch.cuda.CUDAGraph()
    with torch.cuda.stream(s), torch.cuda.graph(g, stream=s):
        static_y = static_x * 2
    return g


def reduce_overlapped(x: torch.Tensor, ctx, compute_stream, reduce_stream):
    # Two streams handed in: `reduce_stream` is forked from `compute_stream` and joined back into
    # it; the work `compute_stream` gets after the join is no fork of its own.
    reduce_stream.wait_stream(compute_stream)
    with torch.cuda.stream(reduce_stream):
        ctx.out.copy_(x * 2)
    compute_stream.wait_stream(reduce_stream)
    with torch.cuda.stream(compute_stream):
        ctx.out.add_(1)
    return ctx.out
