# Near misses of bad.config_arm_calls.py: arms that do not run every step.
import torch
import torch.nn as nn


def _rotary_table(n, device):
    table = torch.arange(n, device=device)
    return table, int(table.max().item())  # once: lazy initialisation


def _report(x):
    return x.abs().max().item()  # only when the step counter says so


class Attention(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.proj = nn.Linear(n, n).cuda()
        self._freqs = None

    def forward(self, x: torch.Tensor, step: int = 0, log_every: int = 100):
        if self._freqs is None:
            self._freqs = _rotary_table(x.shape[-1], x.device)
        if step % log_every == 0:
            _report(x)
        return self.proj(x)
