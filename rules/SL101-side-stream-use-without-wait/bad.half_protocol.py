# Half of the ordering protocol: the function joins the side stream after its region (the current
# stream waits for it), so it orders the two streams itself, but the side stream never waits for
# the current one first: it can read `hidden` before the layer that produced it has run.
import torch


def shared_expert(hidden: torch.Tensor, expert: torch.nn.Module, side: torch.cuda.Stream):
    with torch.cuda.stream(side):  # expect: SL101
        out = expert(hidden * 0.5)
    torch.cuda.current_stream().wait_stream(side)
    return out
