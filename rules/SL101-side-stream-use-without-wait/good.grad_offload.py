# The gradient offloader waits for the stream backward ran on before it copies: the copy
# stream reads each gradient only after the current stream has written it.
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
        self._d2h.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._d2h):
            for param in params:
                if param.grad is None:
                    continue
                buffer = self._host_buffer(param)
                grad = param.grad.to_local()
                buffer.copy_(grad, non_blocking=True)
                grad.record_stream(self._d2h)
                param.grad = None
