# Packed-sequence metadata, read by every attention layer. The attention forward is patched in
# from another file (`Attention.forward = fast_attention_forward`) and hands this helper the
# GPU device its tensors live on, every step: the `.item()` below runs once per layer per step
# (unsloth 36785caf). `if lengths is None: return None` tests what the caller passed, so what
# follows runs on every call that has packed lengths.
import torch


def packed_info(kwargs: dict, device: torch.device):
    lengths = kwargs.get("packed_seq_lengths")
    if lengths is None:
        return None
    lengths = lengths.to(device=device, dtype=torch.int32, non_blocking=True)
    cu_seqlens = torch.zeros(lengths.numel() + 1, dtype=torch.int32, device=device)
    torch.cumsum(lengths, dim=0, out=cu_seqlens[1:])
    max_seqlen = int(lengths.max().item())  # expect: SL302
    return lengths, cu_seqlens, max_seqlen
