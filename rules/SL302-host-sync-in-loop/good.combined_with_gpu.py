# Combined with host tensors only: nothing says the receiver is on the GPU.
import torch


def offsets_on_host(search, bsz, max_len):
    offsets = torch.arange(0, bsz)
    for step in range(max_len):
        beams = search(step)
        cand = beams.add(offsets)
        print(torch.masked_select(cand, cand > step).tolist())
