"""SL904 fixed: the side stream waits for the default stream before reading."""
import torch

side = torch.cuda.Stream()
w = torch.randn(4096, 4096, device="cuda")
for step in range(3):
    x = torch.randn(4096, 4096, device="cuda")
    y = x @ w                       # produced on the default stream
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        z = y.sum(dim=0)
    torch.cuda.current_stream().wait_stream(side)
    print(step, float(z[0]))
