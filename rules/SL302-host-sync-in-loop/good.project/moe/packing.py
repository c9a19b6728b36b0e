# The fix: the metadata of one batch is computed once and reused by every layer (cached per
# device, keyed by the lengths tensor), so the read below runs once per step, not per layer;
# a cache hit returns before it.
import torch

_CACHE: dict = {}


def packed_info(kwargs: dict, device: torch.device):
    lengths = kwargs.get("packed_seq_lengths")
    if lengths is None:
        return None
    entry = _CACHE.get(device)
    if entry is not None and entry["lengths"] is lengths:
        return entry["result"]
    gpu_lengths = lengths.to(device=device, dtype=torch.int32, non_blocking=True)
    cu_seqlens = torch.zeros(gpu_lengths.numel() + 1, dtype=torch.int32, device=device)
    torch.cumsum(gpu_lengths, dim=0, out=cu_seqlens[1:])
    result = (gpu_lengths, cu_seqlens, int(gpu_lengths.max().item()))
    _CACHE[device] = {"lengths": lengths, "result": result}
    return result
