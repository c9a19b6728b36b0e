# A gradient offloader: each parameter's gradient is copied into pinned host memory on the
# class's own copy stream. The gradient reaches the copy through views of the argument
# (`for param in params`, `param.grad.to_local()`): backward wrote it on the current stream,
# and no method of the class makes the copy stream wait for that stream.
import torch
from torch import nn


class GradOffloader:
    def __init__(self):
        self._d2h = torch.cuda.Stream()
        self._host = {}

    def _host_buffer(self, param):
        if id(param) not in self._host:
            self._host[id(param)] = torch.empty_like(param, device="cpu", pin_memory=True)
        return self._host[id(param)]

    @torch.no_grad()
    def offload(self, params: list[nn.Parameter]) -> None:
        with torch.cuda.stream(self._d2h):  # expect: SL101
            for param in params:
                if param.grad is None:
                    continue
                buffer = self._host_buffer(param)
                grad = param.grad.to_local()
                buffer.copy_(grad, non_blocking=True)
                grad.record_stream(self._d2h)
                param.grad = None
