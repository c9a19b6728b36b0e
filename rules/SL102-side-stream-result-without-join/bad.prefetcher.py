# A data prefetcher: preload() fills the next batch on a side stream, next() hands it to the
# caller's stream. The write and the use sit in two methods; no method of the class makes the
# current stream wait for self.stream (the usual next() starts with
# torch.cuda.current_stream().wait_stream(self.stream)).
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
            self.next_input = self.next_input.float().sub_(0.5)

    def next(self):
        input = self.next_input
        target = self.next_target
        if input is not None:
            input.record_stream(torch.cuda.current_stream())
        if target is not None:
            target.record_stream(torch.cuda.current_stream())
        self.preload()
        return input, target  # expect: SL102 SL102
