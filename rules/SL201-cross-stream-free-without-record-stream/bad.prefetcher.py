# A data prefetcher whose next() joins the side stream but never records the batch for the
# current stream: the batch was allocated on self.stream, the caller uses it on the current
# stream, and once the next preload() replaces the reference the allocator can give its memory
# to the next batch's copy on self.stream while the caller's kernels still read it.
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
        self.preload()
        return input, target  # expect: SL201 SL201
