import torch

calc_stream = torch.cuda.Stream()
with torch.cuda.stream(calc_stream):
    a = torch.randn(1024, 1024, device="cuda")  # expect: SL303
    b = torch.empty_like(a)  # expect: SL303
    h = torch.ones(8)
    d = h.cuda()  # expect: SL303


class Worker:
    def __init__(self):
        self.side = torch.cuda.Stream()

    def step(self, x: torch.Tensor):
        with torch.cuda.stream(self.side):
            buf = torch.zeros(x.shape, device=x.device)  # expect: SL303
            buf.add_(x)
