# bad.generator_prefetcher.py with the wait: in every iteration the caller's stream waits for
# the side stream before the batch copied there is handed out.
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
                next_input = next_input.float().sub_(0.5)
            if not first:
                yield input
            else:
                first = False
            torch.cuda.current_stream().wait_stream(stream)
            input = next_input
        yield input
