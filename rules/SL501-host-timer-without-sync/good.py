import time
import torch

a = torch.randn(256, 256, device="cuda")
torch.cuda.synchronize()
start = time.time()
for i in range(100):
    c = torch.mm(a, a)
torch.cuda.synchronize()
end = time.time()


def event_timed(x: torch.Tensor):
    begin = torch.cuda.Event(enable_timing=True)
    done = torch.cuda.Event(enable_timing=True)
    t0 = time.time()
    begin.record()
    y = torch.relu(x)
    done.record()
    done.synchronize()
    return time.time() - t0


def sync_helper():
    torch.cuda.synchronize()


def host_only(n):
    t0 = time.time()
    total = sum(range(n))
    return time.time() - t0, total


def synced_through_call(x: torch.Tensor):
    t0 = time.time()
    y = x * 2
    sync_helper()
    return time.time() - t0


def sync_per_iteration(steps):
    torch.cuda.synchronize()
    start = time.time()
    for _ in range(steps):
        x = torch.randn(64, 64, device="cuda")
        torch.cuda.synchronize()
    return time.time() - start


def sync_in_the_branch_that_works(warm):
    start = time.time()
    if warm:
        x = torch.randn(64, 64, device="cuda")
        torch.cuda.synchronize()
    end = time.time()
    return end - start


def _agree(flag):
    t = torch.tensor([flag], device="cuda")
    return t.item() == 1


def callee_syncs_in_a_branch(cached, flag):
    start = time.time()
    ok = True if cached else _agree(flag)
    end = time.time()
    return ok, end - start


def slicing_is_not_work(tokens: torch.Tensor, sizes, runner):
    torch.cuda.synchronize()
    start = time.perf_counter()
    for n in sizes:
        runner.capture(tokens[:n])
    return time.perf_counter() - start


def loop_body_syncs(sizes):
    start = time.perf_counter()
    lengths = torch.ones(max(sizes), dtype=torch.int, device="cuda")
    for n in sizes:
        longest = lengths[:n].max().item()
    return time.perf_counter() - start


def synced_where_the_clock_is_read(x: torch.Tensor, timing):
    start = time.time()
    y = torch.mm(x, x)
    if timing:
        torch.cuda.synchronize()  # runs whenever the clock below is read
        print(time.time() - start)
    return y


def outputs_copied_to_the_host(encoder, images):
    t0 = time.perf_counter()
    outs = encoder.forward(images)
    outs = [o.cpu() for o in outs]  # each copy waits for the encoder's kernels
    return outs, time.perf_counter() - t0


def benchmark(model, x, device_type):
    if device_type == "cpu":
        start = time.time()
        model(x)  # the CPU branch: the work is done when the call returns
        return time.time() - start
    torch.cuda.synchronize()
    return 0.0


def outputs_copied_when_they_are_tensors(encoder, images):
    t0 = time.perf_counter()
    outs = encoder.forward(images)
    if isinstance(outs[0], torch.Tensor):  # otherwise there is no GPU result to wait for
        outs = [o.cpu() for o in outs]
    return outs, time.perf_counter() - t0
