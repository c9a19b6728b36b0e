# The side stream computes the result in a helper of the module; the helper's result is made
# by the work the call queued on that stream, and it is returned with nothing making the
# caller's stream wait for it.
import torch

_side = torch.cuda.Stream()


def _project(x, w):
    return torch.nn.functional.linear(x, w).relu_()


def overlapped_projection(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    x = x.cuda()
    _side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(_side):
        out = _project(x, w)  # expect: SL102
    return out
