# bad.hook_grad_offload.py with the record: the allocator keeps the gradient's block until the
# side stream's copy is done.
import torch


class GradOffloader:
    def __init__(self, params):
        self.stream = torch.cuda.Stream()
        self.host = {p: torch.empty_like(p, device="cpu", pin_memory=True) for p in params}

        def hook(p):
            self.stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.stream):
                self.host[p].copy_(p.grad, non_blocking=True)
            p.grad.record_stream(self.stream)
            p.grad = None

        for p in params:
            p.register_post_accumulate_grad_hook(hook)
