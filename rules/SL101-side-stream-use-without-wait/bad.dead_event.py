# An offloader that orders its copy stream after the compute stream with an event, and forgets
# the wait: `ready` is recorded on the current stream but the copy stream never waits on it, so
# the device-to-host copy can read `acts` before the kernels that write it have run.
import torch


class ActivationOffloader:
    def __init__(self):
        self.copy_stream = torch.cuda.Stream()

    def offload(self, x: torch.Tensor, w: torch.Tensor):
        acts = torch.relu(x @ w)
        ready = torch.cuda.Event()
        ready.record()
        with torch.cuda.stream(self.copy_stream):
            host = acts.to("cpu", non_blocking=True)  # expect: SL101
        return host
