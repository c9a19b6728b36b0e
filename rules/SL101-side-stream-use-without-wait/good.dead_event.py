# The offloader of bad.dead_event.py with the wait its event was recorded for: the copy stream
# waits on `ready` before it reads `acts`.
import torch


class ActivationOffloader:
    def __init__(self):
        self.copy_stream = torch.cuda.Stream()

    def offload(self, x: torch.Tensor, w: torch.Tensor):
        acts = torch.relu(x @ w)
        ready = torch.cuda.Event()
        ready.record()
        self.copy_stream.wait_event(ready)
        with torch.cuda.stream(self.copy_stream):
            host = acts.to("cpu", non_blocking=True)
        acts.record_stream(self.copy_stream)
        return host
