"""A 1F1B pipeline schedule of two stages on one GPU, each stage on its own stream (DualPipe-style
overlap of one micro-batch's backward with another's forward): stage 0's forward hands its
activation to stage 1 (stage 1's stream waits for stage 0's, the activation is recorded on it),
stage 1 runs forward, loss and backward, and hands the activation's gradient back (stage 0's
stream waits for stage 1's, the gradient is recorded on it) for stage 0's backward. The
optimizer runs on the default stream after waiting for both; both stages wait for it before the
next step. SL904 must find nothing; each mutant drops one of those edges.

    python pipeline_1f1b.py --steps 200 [--micro 4] [--mutant NAME] [--time]
"""
import torch
import torch.nn as nn
from common import StepTimer, args

MUTANTS = {m: None for m in ("no-act-wait", "no-grad-wait", "no-act-record-stream", "no-grad-record-stream",
                             "no-optimizer-join")}


def extra(p):
    p.add_argument("--micro", type=int, default=4)
    p.add_argument("--width", type=int, default=1024)


a = args(MUTANTS, extra)
torch.manual_seed(0)


def stage():
    return nn.Sequential(*[nn.Sequential(nn.Linear(a.width, 2 * a.width), nn.GELU(), nn.Linear(2 * a.width, a.width))
                           for _ in range(2)]).cuda()


stages = [stage(), stage()]
streams = [torch.cuda.Stream(), torch.cuda.Stream()]
opt = torch.optim.AdamW([p for s in stages for p in s.parameters()], lr=1e-4)
host = [torch.randn(32, a.width).pin_memory() for _ in range(a.micro)]


def handoff(t, src, dst, wait_mutant, record_mutant):
    """t, made on stream src, is used on stream dst from here on."""
    if a.mutant != wait_mutant:
        dst.wait_stream(src)
    if a.mutant != record_mutant:
        t.record_stream(dst)


def forward0(m):
    with torch.cuda.stream(streams[0]):
        x = host[m].to("cuda", non_blocking=True)
        out = stages[0](x)
    handoff(out, streams[0], streams[1], "no-act-wait", "no-act-record-stream")
    return out


def forward_backward1(act):
    """Stage 1 on its stream: forward, loss, backward; returns the activation's gradient."""
    with torch.cuda.stream(streams[1]):
        inp = act.detach().requires_grad_()
        loss = stages[1](inp).square().mean() / a.micro
        loss.backward()
    handoff(inp.grad, streams[1], streams[0], "no-grad-wait", "no-grad-record-stream")
    return inp.grad


def backward0(act, grad):
    with torch.cuda.stream(streams[0]):
        act.backward(grad)


timer = StepTimer(a)
cur = torch.cuda.current_stream()
for step in range(a.steps):
    for s in streams:
        s.wait_stream(cur)  # the optimizer's update of the last step before any use
    # 1F1B: one forward ahead on stage 0, then each stage-1 forward+backward of micro-batch m
    # overlaps stage 0's forward of m + 1; stage 0's backward of m follows.
    acts = [forward0(0)]
    for m in range(a.micro):
        if m + 1 < a.micro:
            acts.append(forward0(m + 1))
        grad = forward_backward1(acts[m])
        backward0(acts[m], grad)
        acts[m] = None  # stage 0's activation freed here: recorded on stage 1's stream
        del grad
    if a.mutant != "no-optimizer-join":
        for s in streams:
            cur.wait_stream(s)
    opt.step()
    opt.zero_grad(set_to_none=True)
    timer.step(step)
torch.cuda.synchronize()
print(f"1f1b steps {a.steps} micro {a.micro} weight {stages[1][0][0].weight.sum().item():.4f}", flush=True)
