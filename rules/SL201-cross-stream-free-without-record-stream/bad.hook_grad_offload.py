# A gradient offloader: a hook copies each gradient to the host on a side stream and then drops
# it to save device memory. The gradient was made by backward on the current stream; once
# `p.grad = None` drops it, its block goes back to the current stream's pool, and backward can
# reuse it while the side stream's copy still reads it.
import torch


class GradOffloader:
    def __init__(self, params):
        self.stream = torch.cuda.Stream()
        self.host = {p: torch.empty_like(p, device="cpu", pin_memory=True) for p in params}

        def hook(p):
            self.stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.stream):
                self.host[p].copy_(p.grad, non_blocking=True)
            p.grad = None  # expect: SL201

        for p in params:
            p.register_post_accumulate_grad_hook(hook)



class HostMirrorOffloader:
    # The same through a host mirror of each parameter, whose `.grad` receives the copy, in a
    # hook defined in `__init__` that hands the copy's end over as an event: the hook's
    # parameter is the tensor autograd hands it (on the device), and so is its `.grad`.
    def __init__(self, params):
        self.stream = torch.cuda.Stream()
        self.mirror = {}
        self.pending = {}

        def offload(param):
            if param.grad is not None:
                host = self.mirror[param]
                self.stream.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(self.stream):
                    host.grad.copy_(param.grad, non_blocking=True)
                self.pending[param] = self.stream.record_event()
                param.grad = None  # expect: SL201

        for p in params:
            host = torch.empty_like(p, device="cpu", pin_memory=True)
            host.grad = torch.empty_like(host, pin_memory=True)
            self.mirror[p] = host
            p.register_post_accumulate_grad_hook(offload)
