import torch


def tokens_per_expert(offs: torch.Tensor) -> list:
    assert offs.is_cuda
    # One read per expert; a single `.tolist()` is the host-needs-the-value form
    # (good.host_needs_value.py) that SL302 leaves out.
    return [n.item() for n in torch.diff(offs)]  # expect: SL302
