"""SL904 fixed: the default stream joins the side stream before using its result."""
import torch

side = torch.cuda.Stream()
w = torch.randn(4096, 4096, device="cuda")
x = torch.randn(4096, 4096, device="cuda")
for step in range(3):
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        h = x @ w
    torch.cuda.current_stream().wait_stream(side)
    h.record_stream(torch.cuda.current_stream())
    out = h.relu()
    print(step, float(out[0, 0]))
    torch.cuda.synchronize()
