# Near misses of good.host_needs_value.py: still one read per item, or a test that does work.
import torch


class Splitter(torch.nn.Module):
    def forward(self, hidden: torch.Tensor, counts: torch.Tensor):
        counts = counts.cuda()
        pieces = []
        for i in range(4):
            # Per item: one .tolist() before the loop would do.
            pieces.append(hidden.split(counts[i].tolist()))  # expect: SL302
        return pieces


def dice(preds, targets, num_classes):
    preds = preds.cuda()
    targets = targets.cuda()
    scores = torch.zeros(num_classes, device="cuda")
    for i in range(num_classes):
        if (targets != i).all():  # expect: SL302
            scores[i] += 1
    return scores


def decode(model, frames, device):
    active = torch.ones(frames.shape[0], dtype=torch.bool, device=device)
    for _ in range(100):
        active = active & model(frames)
        if active.any():  # expect: SL302
            frames = frames * 2
            break


class MaskedFill(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        y = x.cuda()
        pads = y.eq(0)
        # The test guards a write that an empty mask makes a no-op: drop the test.
        if pads.any():  # expect: SL302
            y = y.masked_fill(pads, 1.0)
        return y


class DefaultLengths(torch.nn.Module):
    def forward(self, x: torch.Tensor, lengths=None):
        x = x.cuda()
        if lengths is None:
            # A default built on the host and uploaded every forward: build it on the device.
            lengths = torch.tensor([x.shape[1]] * x.shape[0]).to(x.device)  # expect: SL302
        return self.encoder(x, lengths)
