# Helpers of the grouped GEMM. Nothing in this file says they run every step: the experts'
# forward, in another file, calls them on every step with GPU tensors.
import torch


def group_start_rows(offs: torch.Tensor) -> torch.Tensor:
    """First row of each group once every group is padded to a multiple of 128 rows."""
    zero = torch.tensor([0], dtype=offs.dtype, device=offs.device)  # expect: SL302
    sizes = torch.diff(offs, prepend=zero)
    padded = (sizes + 127) // 128 * 128
    return torch.cat([zero, torch.cumsum(padded, dim=0)])


def padded_size(offs: torch.Tensor) -> int:
    assert offs.is_cuda, "offsets live with the tokens, on the GPU"
    return int(offs[-1].item()) + 128  # expect: SL302
