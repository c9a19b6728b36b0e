# Segment helpers. Nothing in this file says where the tensors live: the experts' forward, in
# another file, passes its GPU offsets in on every step, which makes `ptr` a GPU tensor here.
from typing import Optional

import torch


def segment_repeat(src: torch.Tensor, ptr: Optional[torch.Tensor] = None) -> torch.Tensor:
    # The arm is chosen by the arguments alone: every call given `ptr` takes it.
    if ptr is not None and ptr.dim() == 1:
        count = ptr[1:] - ptr[:-1]
        return src.repeat_interleave(count, dim=0)  # expect: SL302
    return src
