"""SL904 bad: a side stream reads a tensor the default stream is still writing (no wait)."""
import torch

side = torch.cuda.Stream()
w = torch.randn(4096, 4096, device="cuda")
for step in range(3):
    x = torch.randn(4096, 4096, device="cuda")
    y = x @ w                       # produced on the default stream
    with torch.cuda.stream(side):
        z = y.sum(dim=0)            # races: side never waited for the default stream
    torch.cuda.current_stream().wait_stream(side)
    print(step, float(z[0]))
