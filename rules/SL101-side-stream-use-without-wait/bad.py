import torch

side = torch.cuda.Stream()


def no_wait(n: int):
    x = torch.randn(n, device="cuda")
    with torch.cuda.stream(side):
        y = x * 2  # expect: SL101
    return y


def wait_inside_region_waits_for_nothing(a: torch.Tensor):
    b = torch.relu(a)
    with torch.cuda.stream(side):
        side.wait_stream(torch.cuda.current_stream())  # current_stream() is `side` here
        c = torch.mm(b, b)  # expect: SL101
    torch.cuda.current_stream().wait_stream(side)
    return c


def wait_in_one_branch_only(a: torch.Tensor, flag: bool):
    b = a + 1
    if flag:
        side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        b.mul_(2)  # expect: SL101


class Zero:
    def __init__(self, overlap: bool):
        if overlap:
            self.bcast_stream = torch.cuda.Stream()
        else:
            self.bcast_stream = torch.cuda.current_stream()

    def _step(self, fp16: torch.Tensor, fp32: torch.Tensor):
        fp16.copy_(fp32)
        with torch.cuda.stream(self.bcast_stream):  # a side stream on one path is enough
            torch.distributed.broadcast(fp16, 0)  # expect: SL101


def through_the_accelerator(x: torch.Tensor):
    from deepspeed.accelerator import get_accelerator  # recognised without configuration

    s = get_accelerator().Stream()
    y = x * 2
    with get_accelerator().stream(s):
        z = y + 1  # expect: SL101
    get_accelerator().current_stream().wait_stream(s)
    return z


def per_stream_chunks(chunk_streams):
    # Streams picked from a list with no wait at all: nothing orders them after `x`.
    x = torch.randn(4, 8, device="cuda")
    for i in range(4):
        with torch.cuda.stream(chunk_streams[i]):
            y = x.select(0, i) * 2  # expect: SL101


class ShardedOptimizer:
    # The state is written in one method and read on a side stream by another, through the
    # same state object: `self.shards.get(g)` in both.
    def __init__(self, overlap: bool):
        self.shards = ShardStore()
        self.bcast = torch.cuda.Stream() if overlap else torch.cuda.current_stream()

    def step(self, masters):
        for g, master in enumerate(masters):
            shard = self.shards.get(g)
            shard.data.copy_(master)  # written on the current stream
        with torch.cuda.stream(self.bcast):
            self.broadcast_shards()  # expect: SL101

    def broadcast_shards(self):
        for g in range(self.num_groups):
            shard = self.shards.get(g)
            torch.distributed.broadcast(shard, 0, async_op=True)


class Prefetcher:
    # An attribute written in place here and read by a helper of the class on the side stream.
    def __init__(self):
        self.copy_stream = torch.cuda.Stream()
        self.buf = torch.empty(1024, device="cuda")

    def refill(self, src: torch.Tensor):
        self.buf.copy_(src)
        with torch.cuda.stream(self.copy_stream):
            self._scale_into_cache()  # expect: SL101

    def _scale_into_cache(self):
        self.cache = self.buf * 2


class ParamMirror:
    # Loop variables over an attribute are that attribute's state.
    def __init__(self):
        self.comm = torch.cuda.Stream()

    def step(self):
        for p in self.params:
            p.mul_(0.5)
        with torch.cuda.stream(self.comm):
            self.sync_params()  # expect: SL101

    def sync_params(self):
        for p in self.params:
            torch.distributed.broadcast(p.data, 0)


def write_metrics(loss_dict, data_time):
    # A stream created in the region's header: nothing can have made it wait for the stream the
    # losses were computed on (detectron2's train loop before its fix).
    device = next(iter(loss_dict.values())).device
    with torch.cuda.stream(torch.cuda.Stream() if device.type == "cuda" else None):  # expect: SL101
        metrics = {k: v.detach().cpu().item() for k, v in loss_dict.items()}
    metrics["data_time"] = data_time
    return metrics


def backward_hook_on_a_side_stream(side, xs):
    # A hook's argument (here the incoming gradient) is produced on the stream current when the
    # hook runs; the side stream reads it with no wait.
    def hook(grad):
        with torch.cuda.stream(side):  # expect: SL101
            grad.mul_(2)

    for x in xs:
        x.register_hook(hook)
