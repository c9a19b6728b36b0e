"""The driver's side of the programs that have no side stream of their own: the next batch is
copied from pinned host memory on a copy stream while the step runs; the step's stream waits for
the copy and the batch is recorded on it (record_stream: the copy stream allocated it). Two
mutants drop one of these edges: `no-batch-wait` (the step reads a batch still being copied:
missing join) and `no-batch-record-stream` (the batch's memory goes back to the copy stream's
pool while the step may still read it, and the next prefetch writes it: missing record_stream).
"""
import torch


class Prefetcher:
    def __init__(self, host_batches, mutant=""):
        self.host, self.mutant = host_batches, mutant
        self.copy = torch.cuda.Stream()
        self.i, self.next = 0, None
        self._issue()

    def _issue(self):
        # No wait for the step here: the copy writes new memory, which record_stream keeps from
        # being handed out again before the step's reads are done.
        with torch.cuda.stream(self.copy):
            h = self.host[self.i % len(self.host)]
            self.next = tuple(t.to("cuda", non_blocking=True) for t in h)
        self.i += 1

    def get(self):
        cur = torch.cuda.current_stream()
        if self.mutant != "no-batch-wait":
            cur.wait_stream(self.copy)
        batch = self.next
        if self.mutant != "no-batch-record-stream":
            for t in batch:
                t.record_stream(cur)
        self._issue()
        return batch
