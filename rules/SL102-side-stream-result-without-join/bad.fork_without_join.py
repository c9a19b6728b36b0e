# A function forks a side stream from the current one (the side stream waits for it), hands it
# an all-gather, computes on the current stream meanwhile and returns without joining: the
# caller's stream runs on while the gather still reads `x` (the caller may free it) and writes
# the workspace the caller's next call reads.
import torch


def gather_on(x: torch.Tensor, workspace: torch.Tensor, stream):
    with torch.cuda.stream(stream):
        workspace.copy_(x)


class GatherContext:
    def __init__(self):
        self.gather_stream = torch.cuda.Stream()
        self.inter_stream = torch.cuda.Stream()
        self.workspace = torch.empty(1 << 20, device="cuda")
        self.inter_workspace = torch.empty(1 << 20, device="cuda")


def gather_gemm(x: torch.Tensor, w: torch.Tensor, ctx: GatherContext):
    current = torch.cuda.current_stream()
    ctx.gather_stream.wait_stream(current)
    gather_on(x, ctx.workspace, ctx.gather_stream)
    y = x @ w
    return y  # expect: SL102


def gather_two_level(x: torch.Tensor, ctx: GatherContext):
    # A helper handed two streams queues work on both; only the first is joined back.
    current = torch.cuda.current_stream()
    ctx.gather_stream.wait_stream(current)
    ctx.inter_stream.wait_stream(current)
    gather_two_on(x, ctx.workspace, ctx.inter_workspace, ctx.gather_stream, ctx.inter_stream)
    current.wait_stream(ctx.gather_stream)
    return x  # expect: SL102


def gather_two_on(x: torch.Tensor, intra_ws: torch.Tensor, inter_ws: torch.Tensor, intra, inter):
    with torch.cuda.stream(inter):
        inter_ws.copy_(x)
    with torch.cuda.stream(intra):
        intra_ws.copy_(x)


class Overlapped:
    def __init__(self):
        self.side = torch.cuda.Stream()

    def forward(self, x: torch.Tensor):
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            h = x * 2
            h.mul_(3)
        z = x + 1  # expect: SL102


class Projector:
    # The work's end is recorded on an event kept on `self`, but nothing in the module ever waits
    # on that event: the record hands nothing over.
    def __init__(self):
        self.compute_stream = torch.cuda.Stream()
        self.ready = torch.cuda.Event()
        self.done = torch.cuda.Event()

    def forward(self, x: torch.Tensor, w: torch.Tensor):
        self.ready.record()
        self.compute_stream.wait_event(self.ready)
        with torch.cuda.stream(self.compute_stream):
            y = x @ w
        self.done.record(self.compute_stream)
        return x  # expect: SL102
