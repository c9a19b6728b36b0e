# Per-sample loops written as comprehensions over zip()/enumerate() of GPU tensors: each
# element read is a sync. trl fdb228cf (GRPO/RLOO: `p[m].tolist()` per row on CUDA tensors).
import torch


def completion_lists(completion_ids, eos_idx, device):
    positions = torch.arange(completion_ids.size(1), device=device).expand(completion_ids.size(0), -1)
    completion_mask = (positions <= eos_idx.unsqueeze(1)).int()
    # `c` is indexed by the GPU mask, so it is on the GPU too.
    return [c[m].tolist() for c, m in zip(completion_ids, completion_mask.bool())]  # expect: SL302


def row_scores(logits: torch.Tensor):
    scores = logits.cuda().softmax(-1)
    return [(i, s.max().item()) for i, s in enumerate(scores)]  # expect: SL302
