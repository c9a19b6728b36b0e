# A generator that prefetches the next batch on a side stream while the caller trains on the
# current one. The region is entered through `partial(torch.cuda.stream, stream=stream)`, and
# the batch copied there is handed to the caller (yield) with no wait of the caller's stream on
# the side stream: the step can read it before the copy has landed.
from functools import partial

import torch


class Prefetcher:
    def __init__(self, loader):
        self.loader = loader

    def __iter__(self):
        stream = torch.cuda.Stream()
        stream_context = partial(torch.cuda.stream, stream=stream)
        first = True
        for next_input in self.loader:
            with stream_context():
                next_input = next_input.cuda(non_blocking=True)
                next_input = next_input.float().sub_(0.5)  # expect: SL102
            if not first:
                yield input
            else:
                first = False
            input = next_input
        yield input
