# The prefetcher of bad.prefetcher.py written the correct way: next() makes the current stream
# wait for the side stream before it hands the batch over, and records the batch for the
# current stream so that the next preload() cannot reuse its memory early.
import torch


class DataPrefetcher:
    def __init__(self, loader):
        self.loader = iter(loader)
        self.stream = torch.cuda.Stream()
        self.preload()

    def preload(self):
        try:
            self.next_input, self.next_target = next(self.loader)
        except StopIteration:
            self.next_input = None
            self.next_target = None
            return
        with torch.cuda.stream(self.stream):
            self.next_input = self.next_input.cuda(non_blocking=True)
            self.next_target = self.next_target.cuda(non_blocking=True)

    def next(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        input = self.next_input
        target = self.next_target
        if input is not None:
            input.record_stream(torch.cuda.current_stream())
        if target is not None:
            target.record_stream(torch.cuda.current_stream())
        self.preload()
        return input, target


class EventPrefetcher:
    """The join through an event: recorded after the copies, waited on by the consumer."""

    def __init__(self, loader):
        self.loader = iter(loader)
        self.stream = torch.cuda.Stream()
        self.ready = torch.cuda.Event()

    def preload(self):
        batch = next(self.loader)
        with torch.cuda.stream(self.stream):
            self.batch = batch.cuda(non_blocking=True)
            self.ready.record(self.stream)

    def next(self):
        self.ready.wait()
        batch = self.batch
        batch.record_stream(torch.cuda.current_stream())
        self.preload()
        return batch
