import torch


def tokens_per_expert(offs: torch.Tensor) -> list:
    assert offs.is_cuda
    return torch.diff(offs).tolist()  # expect: SL302
