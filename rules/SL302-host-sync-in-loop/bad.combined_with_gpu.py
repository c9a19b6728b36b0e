# A receiver of unknown device combined with a GPU tensor by a tensor method is on the GPU too:
# torch combines the tensors of one device only (fairseq 1df3e50a's beam search).
import torch


class Generator(torch.nn.Module):
    def forward(self, src_tokens, max_len):
        assert src_tokens.is_cuda
        bsz = src_tokens.size(0)
        offsets = torch.arange(0, bsz).to(src_tokens.device)  # expect: SL302
        for step in range(max_len):
            beams = self.search(step)
            cand = beams.add(offsets)  # .add() with a GPU tensor: `beams` is on the GPU too
            eos_idx = torch.masked_select(cand, cand > step)  # expect: SL302
            self.finalize(step, eos_idx)
