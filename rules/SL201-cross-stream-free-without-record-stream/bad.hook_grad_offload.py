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
