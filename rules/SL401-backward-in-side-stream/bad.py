import torch
from typing import Optional


def overlapped_backward(loss1: Optional[torch.Tensor], backward_stream):
    with torch.cuda.stream(backward_stream):
        loss1.backward()  # expect: SL401


def autograd_api_in_side_stream(out: torch.Tensor, grad: torch.Tensor):
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.autograd.backward([out], [grad])  # expect: SL401


def engine_run_backward(outputs, grads, s):
    with torch.cuda.stream(s):
        torch.autograd.Variable._execution_engine.run_backward(outputs, grads, False)  # expect: SL401


def _do_backward(loss: torch.Tensor):
    loss.backward()


def through_helper(loss: torch.Tensor, s):
    with torch.cuda.stream(s):
        _do_backward(loss)  # expect: SL401


def untyped_loss(loss, s):
    with torch.cuda.stream(s):
        loss.backward()  # expect: SL401


def unpacked_before_the_region(parts, grad, s):
    # The same unpack before the region: the forward ran on the current stream.
    from ops import merge_attentions

    out, lse = merge_attentions(parts)
    with torch.cuda.stream(s):
        out.backward(grad)  # expect: SL401
