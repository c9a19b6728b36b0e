import torch

calc_stream = torch.cuda.Stream()
a = torch.randn(1024, 1024, device="cuda")
b = torch.empty_like(a)
calc_stream.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(calc_stream):
    c = torch.mm(a, a)
    b.copy_(c)
    host = torch.ones(8)  # CPU tensor: not a device allocation

with torch.cuda.stream(torch.cuda.current_stream()):
    d = torch.zeros(4, device="cuda")  # region on the current stream: same pool
