# The same helper as bad.project's: its caller hands it host offsets, so `ptr` is a tensor of
# unknown device (a low-confidence guess), not a GPU one.
from typing import Optional

import torch


def segment_repeat(src: torch.Tensor, ptr: Optional[torch.Tensor] = None) -> torch.Tensor:
    if ptr is not None and ptr.dim() == 1:
        count = ptr[1:] - ptr[:-1]
        return src.repeat_interleave(count, dim=0)
    return src
