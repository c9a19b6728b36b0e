# `.cpu()` in the model's own per-step code copies what only a GPU tensor needs copied: the
# offloading forward of an activation-checkpointing autograd.Function (fairseq 0972dde8) blocks
# on every saved input, every step; `x.to("cpu", non_blocking=True)` into pinned memory does not.
import torch


def split_tensors(args):
    return [a for a in args if torch.is_tensor(a)], [a for a in args if not torch.is_tensor(a)]


class OffloadedCheckpoint(torch.autograd.Function):
    @staticmethod
    def forward(ctx, run_function, offload, *args):
        tensors, others = split_tensors(args)
        if offload:
            ctx.devices = tuple(x.device for x in tensors)
            tensors = tuple(x.cpu() for x in tensors)  # expect: SL302
        ctx.save_for_backward(*tensors)
        with torch.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        inputs = [t.to(d) for t, d in zip(ctx.saved_tensors, ctx.devices)]
        return (None, None, *inputs)


def setup(device=torch.device("cuda")):
    return device
