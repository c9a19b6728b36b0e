# bad.operator_result.py with record_stream: the allocator keeps the block until the side
# stream's copy is done.
import torch


class Offloader:
    def __init__(self):
        self.d2h = torch.cuda.Stream()
        self.host = torch.empty(1024, pin_memory=True)

    def offload(self, big):
        scaled = big.cuda() * 2
        self.d2h.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.d2h):
            self.host.copy_(scaled, non_blocking=True)
            scaled.record_stream(self.d2h)
