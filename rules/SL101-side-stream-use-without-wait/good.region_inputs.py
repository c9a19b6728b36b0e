# bad.region_inputs.py with the wait; and host values in a region are no GPU work: a list's
# `.sort()` is not a tensor computation.
import torch


def shared_branch(hidden, aux):
    aux.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(aux):
        out = hidden.mul(2).softmax(-1)
    torch.cuda.current_stream().wait_stream(aux)
    return out


def upload_sorted(names, table, copy):
    with torch.cuda.stream(copy):
        names.sort()
        ids = torch.tensor([table[n] for n in names]).cuda(non_blocking=True)
    torch.cuda.current_stream().wait_stream(copy)
    return ids
