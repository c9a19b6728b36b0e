# Unannotated inputs: nothing says `hidden` is a CUDA tensor, but the function computes with it
# (`.mul()`, a tensor method) inside a region on a CUDA stream, which is there to queue GPU work;
# the function joins the stream after the region, yet never makes it wait before.
import torch


def shared_branch(hidden, aux):
    with torch.cuda.stream(aux):  # expect: SL101
        out = hidden.mul(2).softmax(-1)
    torch.cuda.current_stream().wait_stream(aux)
    return out
