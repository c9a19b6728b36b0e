# A torcheval/torchmetrics Metric's update() runs on every batch: a blocking host-to-device copy
# in it stalls the host each time (fairseq2's BLEU metric before its fix).
import torch
from torcheval.metrics import Metric


class BleuMetric(Metric[torch.Tensor]):
    def __init__(self, device="cuda"):
        super().__init__(device=device)
        self._add_state("valid_ngrams", torch.zeros((4,), device=device))

    def update(self, counts):
        self.valid_ngrams += torch.tensor(counts, device=self.device)  # expect: SL302
        return self
