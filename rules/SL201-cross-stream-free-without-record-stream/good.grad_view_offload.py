# Offloading gradients to pinned host buffers on a copy stream: the helper takes each
# parameter's gradient through a view (`.view(-1)`), queues its copy to the host on the copy
# stream, and then drops the gradient (`p.grad = None`). The view shares the gradient's
# storage, which autograd allocated on the current stream; once dropped, the allocator can
# hand that memory to new work on the current stream while the copy stream still reads it.
# (Fixed: the view is recorded for the copy stream before the gradient is dropped.)
import torch


class GradOffloader:
    def __init__(self, host_buffers):
        self.host_buffers = host_buffers
        self.copy_stream = torch.cuda.Stream()

    def offload(self, params):
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            for i, p in enumerate(params):
                flat = p.grad.view(-1)
                self.host_buffers[i].copy_(flat, non_blocking=True)
                flat.record_stream(self.copy_stream)
                p.grad = None
