# A loop's body written as a method of the same class, handed GPU tensors on every iteration
# (fairseq2 c7bb1387: a beam search that builds a tensor on the GPU per beam and step), and
# per-sample loops over `enumerate(zip(...))` of GPU tensors.
import torch


class BeamSearch:
    def _search_beam(self, beam: int, lprobs: torch.Tensor, scores: torch.Tensor):
        offsets = torch.tensor([beam], device=lprobs.device)  # expect: SL302
        return lprobs.topk(2).indices + offsets

    def _step(self, lprobs: torch.Tensor, scores: torch.Tensor):
        lprobs = lprobs.cuda()
        scores = scores.cuda()
        out = []
        for beam, (lp, sc) in enumerate(zip(lprobs.split(1), scores.split(1))):
            out.append(self._search_beam(beam, lp, sc))
        return out


def mean_embeddings(hidden, attention_mask):
    hidden = hidden.cuda()
    lengths = attention_mask.cuda().sum(dim=1)
    rows = []
    for i, (row, n) in enumerate(zip(hidden, lengths)):
        rows.append(row[1 : n - 1].mean(0))  # expect: SL302
    return rows


def stop_early(model, x, limit):
    x = x.cuda()
    for step in range(limit):
        x = model(x)
        # A condition calls bool() on every operand that can end it, the last one too.
        if step > 0 and torch.isnan(x).any():  # expect: SL302
            x = torch.nan_to_num(x)
    return x


class SequenceGenerator:
    def finalize_hypos(self, step, bbsz_idx, attn: torch.Tensor, beam_size: int, device="cuda"):
        # index_select needs its index on the tensor's device: `bbsz_idx` is on the GPU.
        attn_clone = attn.index_select(0, bbsz_idx)
        seen = []
        for i in range(bbsz_idx.size(0)):
            unfin_idx = bbsz_idx[i] // beam_size
            seen.append(str(unfin_idx.item()))  # expect: SL302
        return attn_clone, seen
