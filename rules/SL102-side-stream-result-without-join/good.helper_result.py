# The side stream computes the result in a helper of the module, and the caller's stream waits
# for it before the result is handed back.
import torch

_side = torch.cuda.Stream()


def _project(x, w):
    return torch.nn.functional.linear(x, w).relu_()


def overlapped_projection(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    x = x.cuda()
    _side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(_side):
        out = _project(x, w)
    torch.cuda.current_stream().wait_stream(_side)
    return out
