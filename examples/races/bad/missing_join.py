"""SL904 bad: the default stream uses a side stream's result without joining it."""
import torch

side = torch.cuda.Stream()
w = torch.randn(4096, 4096, device="cuda")
x = torch.randn(4096, 4096, device="cuda")
for step in range(3):
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        h = x @ w                   # produced on the side stream
    out = h.relu()                  # races: no current_stream().wait_stream(side)
    print(step, float(out[0, 0]))
    torch.cuda.synchronize()
