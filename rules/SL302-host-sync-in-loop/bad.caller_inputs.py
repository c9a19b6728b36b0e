# Helpers of the same module handed GPU tensors by their callers (fairseq 1df3e50a and
# 8ca48131): the parameters carry no device of their own, the calls do.
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
            banned = [self.banned_tokens(cand, i) for i in range(bsz)]
            del banned

    def finalize(self, step, bbsz_idx):
        done = []
        for i in range(bbsz_idx.numel()):
            if bbsz_idx[i].item() > step:  # expect: SL302
                done.append(i)
        return done

    @staticmethod
    def banned_tokens(tokens, i):
        return tokens[i, -3:].tolist()  # expect: SL302
