# Near misses of bad.per_sample.py: the tensors are copied to the host once before the
# per-row loop (trl's fix), or the zipped values are host data.
import torch


def completion_lists(completion_ids, eos_idx, device):
    positions = torch.arange(completion_ids.size(1), device=device).expand(completion_ids.size(0), -1)
    completion_mask = (positions <= eos_idx.unsqueeze(1)).int()
    return [c[m].tolist() for c, m in zip(completion_ids.cpu(), completion_mask.bool().cpu())]


def row_scores(logits: torch.Tensor, names):
    scores = logits.cuda().softmax(-1).cpu()
    return [(n, s.max().item()) for n, s in zip(names, scores)]
