# The host needs the values (bench/precision: "host-needs-the-value", kept by maintainers).
import torch
import torch.distributed as dist


class MoEDispatch(torch.nn.Module):
    def forward(self, hidden: torch.Tensor, counts: torch.Tensor, group):
        counts = counts.cuda()
        # Split sizes of all_to_all_single and torch.split are host ints by contract: one bulk
        # read per forward, the form SL302's own fix asks for.
        input_splits = counts.tolist()
        output_splits = counts.sum(dim=0).cpu().numpy()
        out = torch.empty_like(hidden)
        dist.all_to_all_single(out, hidden, output_split_sizes=output_splits, input_split_sizes=input_splits)
        return out.split(counts.tolist())


class Encoder(torch.nn.Module):
    def forward(self, x: torch.Tensor, lengths: torch.Tensor):
        lengths = lengths.cuda()
        packed = torch.nn.utils.rnn.pack_padded_sequence(
            x, lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        return packed


def greedy_decode(model, frames, device):
    active = torch.ones(frames.shape[0], dtype=torch.bool, device=device)
    # The loop's exit test: the host must know whether any hypothesis is still active.
    while active.any():
        active = active & model(frames)


def generate(model, tokens, eos, steps):
    finished = torch.zeros(tokens.shape[0], dtype=torch.bool, device="cuda")
    for _ in range(steps):
        tokens = model(tokens)
        finished = finished | (tokens[:, -1] == eos)
        if finished.all():  # an early stop
            break
    return tokens


class SentenceEncoder(torch.nn.Module):
    def forward(self, tokens: torch.Tensor, grid: torch.Tensor):
        tokens = tokens.cuda()
        grid = grid.cuda()
        padding_mask = tokens.eq(0)
        # A whole-tensor test once per forward picks the path (or checks an input).
        if not padding_mask.any():
            padding_mask = None
        assert bool((grid[:, 0] == 1).all()), "one frame per image"
        return self.layers(tokens, padding_mask)


class EditPipeline:
    def __call__(self, latents, masks, steps):
        latents = latents.cuda()
        for i in range(steps):
            latents = self.unet(latents)
            # Kept on the host for the user (the pipeline returns them): the copy is the point.
            self.activation_mask[i] = (latents > 0).detach().cpu()
        return latents


class VarlenAttention(torch.nn.Module):
    def forward(self, q: torch.Tensor, cu_seqlens: torch.Tensor, max_seqlen=None):
        cu_seqlens = cu_seqlens.cuda()
        # Read only when the caller omits max_seqlen, which is how the API avoids the read.
        if max_seqlen is None:
            max_seqlen = int((cu_seqlens[1:] - cu_seqlens[:-1]).max().item())
        return self.kernel(q, cu_seqlens, max_seqlen)
