# Two correct prefetchers: one records each batch for the consumer's stream (record_stream),
# the other makes its side stream wait for the consumer's stream before it allocates the next
# batch, so a reused block is only written after the work that read it.
import torch


class RecordingPrefetcher:
    def __init__(self, loader):
        self.loader = iter(loader)
        self.stream = torch.cuda.Stream()
        self.preload()

    def preload(self):
        batch = next(self.loader)
        with torch.cuda.stream(self.stream):
            self.batch = batch.cuda(non_blocking=True)

    def next(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        batch = self.batch
        batch.record_stream(torch.cuda.current_stream())
        self.preload()
        return batch


class WaitingPrefetcher:
    def __init__(self, loader):
        self.loader = iter(loader)
        self.stream = torch.cuda.Stream()

    def preload(self):
        batch = next(self.loader)
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            self.batch = batch.cuda(non_blocking=True)

    def next(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        batch = self.batch
        self.preload()
        return batch
