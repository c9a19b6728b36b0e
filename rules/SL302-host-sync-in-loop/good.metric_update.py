# update() of a class that is not a Metric is not known to run every batch; a Metric's update
# that stays on the device costs nothing.
import torch
from torcheval.metrics import Metric


class RunningTotals:
    def __init__(self, device="cuda"):
        self.device = device
        self.total = torch.zeros((), device=device)

    def update(self, counts):
        self.total += torch.tensor(counts, device=self.device).sum()


class TokenCount(Metric[torch.Tensor]):
    def __init__(self, device="cuda"):
        super().__init__(device=device)
        self._add_state("tokens", torch.zeros((), device=device))

    def update(self, mask):
        self.tokens += mask.sum()
        return self
