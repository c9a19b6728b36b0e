# A delta synchroniser keeps the deltas it computes in a dict on `self`: `_compute_deltas()`
# fills it with work on the current stream, and `_reduce_deltas()` hands each delta to the
# communicator on the sync stream. Nothing makes the sync stream wait for the current stream
# between the two calls, so the reduction can read deltas that are not written yet.
import torch


class DeltaSync:
    def __init__(self, model, comm):
        self.model = model
        self.comm = comm
        self.saved = {n: p.detach().clone() for n, p in model.named_parameters()}
        self.deltas = {}
        self.stream = torch.cuda.Stream()
        self.works = []

    def _compute_deltas(self):
        for name, p in self.model.named_parameters():
            delta = self.saved[name].to(p.device) - p.detach()
            self.deltas[name] = delta

    def _reduce_deltas(self):
        for name in self.deltas:
            self.works.append(self.comm.all_reduce(self.deltas[name]))

    def start(self):
        self._compute_deltas()
        with torch.cuda.stream(self.stream):
            self._reduce_deltas()  # expect: SL101
