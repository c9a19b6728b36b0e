# Checks of what should hold: an `assert` (stripped by `python -O`) and an `if` whose only arm
# raises. A read there validates a value; it is not the work of a step (bench/precision: none of
# the assertions judged in real code was worth fixing).
import torch


class Generator(torch.nn.Module):
    def forward(self, tokens, prefix):
        tokens = tokens.cuda(non_blocking=True)
        for step in range(prefix.size(1)):
            first = tokens[:, : step + 1]
            assert (first == prefix[:, : step + 1].cuda(non_blocking=True)).all()
        return tokens


def train(model, loader, opt):
    for batch in loader:
        loss = model(batch.cuda(non_blocking=True)).mean()
        if torch.isnan(loss).any():
            raise RuntimeError("Train loss contains a NaN.")
        loss.backward()
        opt.step()
