import torch

side = torch.cuda.Stream()


def waits_first(n: int):
    x = torch.randn(n, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = x * 2
    torch.cuda.current_stream().wait_stream(side)
    return y


def event_wait(a: torch.Tensor):
    b = torch.relu(a)
    ready = torch.cuda.Event()
    ready.record()
    with torch.cuda.stream(side):
        side.wait_event(ready)
        c = b * 3
    return c


def produced_in_region(a: torch.Tensor):
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        b = torch.relu(a)
        c = b + 1
    return c


def parameter_after_the_usual_wait(a: torch.Tensor):
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        c = a * 2
    torch.cuda.current_stream().wait_stream(side)
    return c


def upload_only(batch, device):
    # Copies from the host read nothing the current stream produces: no wait needed.
    with torch.cuda.stream(side):
        x = batch.to(device, non_blocking=True)
    return x


class Comm:
    def __init__(self):
        self.stream = torch.cuda.Stream()

    def broadcast(self):
        torch.distributed.broadcast(self.flat, 0)

    def step(self):
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            self.broadcast()


def synchronized(n: int):
    x = torch.randn(n, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        y = x * 2
    return y


# A parameter read on a side stream with no wait before the region: good.caller_waits.py (in
# this module, whose other regions on `side` wait first, it would break the module's protocol).

class Optimizer:
    def __init__(self):
        self.comm_stream = torch.cuda.Stream()

    def broadcast_params(self):
        for p in self.flat_params:
            torch.distributed.broadcast(p, 0)

    def step(self, fp16: torch.Tensor, fp32: torch.Tensor):
        fp16.copy_(fp32)
        with torch.cuda.stream(self.comm_stream):
            self.broadcast_params()  # low confidence (reported at the region's header): shown with --min-confidence low

def backward_hook_on_a_side_stream(side, xs):
    def hook(grad):
        # the gradient is produced on the stream current when the hook runs: wait for it
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # the closure's stream
            grad.mul_(2)

    for x in xs:
        x.register_hook(hook)


def barrier_before_the_region(n: int):
    x = torch.randn(n, device="cuda")
    torch.distributed.barrier()  # blocks the host until the device work is done
    with torch.cuda.stream(side):
        y = x * 2
    return y


def ring_steps(kv_parts, side):
    # Steps alternate between the current stream and `side` (picked from a list), each waiting
    # on the step before; `side` waited for `q` before the loop.
    q = torch.randn(4, 8, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    streams = [torch.cuda.current_stream(), side]
    out = [None, None]
    for i in range(len(kv_parts)):
        with torch.cuda.stream(streams[i % 2]):
            if i > 0:
                streams[i % 2].wait_stream(streams[(i - 1) % 2])
            part = q.select(0, i).contiguous()
            out[i % 2] = part * kv_parts[i]


class ShardedOptimizerThatWaits:
    # The same state written before the region, but the side stream waits first (here, or at
    # the top of the callee).
    def __init__(self):
        self.shards = ShardStore()
        self.bcast = torch.cuda.Stream()
        self.compute = torch.cuda.current_stream()

    def step(self, masters):
        for g, master in enumerate(masters):
            shard = self.shards.get(g)
            shard.data.copy_(master)
        self.bcast.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.bcast):
            self.broadcast_shards()

    def step_waiting_in_the_callee(self, masters):
        for g, master in enumerate(masters):
            shard = self.shards.get(g)
            shard.data.copy_(master)
        with torch.cuda.stream(self.bcast):
            self.broadcast_after_wait()  # low confidence (reported at the region's header): shown with --min-confidence low

    def broadcast_shards(self):
        for g in range(self.num_groups):
            shard = self.shards.get(g)
            torch.distributed.broadcast(shard, 0, async_op=True)

    def broadcast_after_wait(self):
        self.bcast.wait_stream(self.compute)
        for g in range(self.num_groups):
            shard = self.shards.get(g)
            torch.distributed.broadcast(shard, 0, async_op=True)


class CopiesAreNotState:
    # A copy of the state is written, not the state the callee reads.
    def __init__(self):
        self.side = torch.cuda.Stream()
        self.buf = torch.empty(1024, device="cuda")

    def update(self):
        scratch = self.buf.clone()
        scratch.mul_(2)
        with torch.cuda.stream(self.side):
            self._consume()  # low confidence (reported at the region's header): shown with --min-confidence low

    def _consume(self):
        self.out = self.buf + 1


class OtherStateThanTheCalleeReads:
    # What is written (`self.grads`) is not what the callee reads (`self.params`).
    def __init__(self):
        self.comm = torch.cuda.Stream()

    def step(self):
        for g in self.grads:
            g.mul_(0.5)
        with torch.cuda.stream(self.comm):
            self.sync_params()  # low confidence (reported at the region's header): shown with --min-confidence low

    def sync_params(self):
        for p in self.params:
            torch.distributed.broadcast(p.data, 0)


class ReductionIsNotState:
    # `self.buf.sum()` is a new tensor: writing it does not write `self.buf`.
    def __init__(self):
        self.side = torch.cuda.Stream()
        self.buf = torch.empty(1024, device="cuda")

    def update(self):
        total = self.buf.sum()
        total.mul_(2)
        with torch.cuda.stream(self.side):
            self._consume()  # low confidence (reported at the region's header): shown with --min-confidence low

    def _consume(self):
        self.out = self.buf + 1


def write_metrics_after_wait(loss_dict):
    # The new stream is made first and waits for the current one before it is entered.
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        metrics = {k: v.detach().cpu().item() for k, v in loss_dict.items()}
    return metrics
