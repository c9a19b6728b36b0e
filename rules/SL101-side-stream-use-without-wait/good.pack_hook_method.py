# bad.pack_hook_method.py with the wait: the copy stream waits for the forward's stream before
# it copies the activation autograd handed to pack_hook.
import torch


class CpuOffload:
    def __init__(self):
        self.d2h_stream = torch.cuda.Stream()
        self.events = {}

    def pack_hook(self, t):
        host = torch.empty(t.size(), dtype=t.dtype, pin_memory=True)
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.d2h_stream):
            host.copy_(t, non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        self.events[id(host)] = done
        return (t.device, host)

    def unpack_hook(self, packed):
        device, host = packed
        self.events.pop(id(host)).synchronize()
        return host.to(device, non_blocking=True)

    def context(self):
        return torch.autograd.graph.saved_tensors_hooks(pack_hook=self.pack_hook, unpack_hook=self.unpack_hook)
