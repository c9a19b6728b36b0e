# A tensor made by an arithmetic operator on the current stream is read on a side stream (the
# copy to the host), then dies when the function returns, with no record_stream and no join: the
# current stream's pool can hand its block to new work while the copy still reads it.
import torch


class Offloader:
    def __init__(self):
        self.d2h = torch.cuda.Stream()
        self.host = torch.empty(1024, pin_memory=True)

    def offload(self, big):
        scaled = big.cuda() * 2
        self.d2h.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.d2h):
            self.host.copy_(scaled, non_blocking=True)  # expect: SL201
