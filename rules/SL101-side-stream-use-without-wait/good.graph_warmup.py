# bad.graph_warmup.py with the fork that torch's CUDA graph docs show: the side stream waits for
# the current one before the warm-up.
import torch


def capture(model, static_x):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            model(static_x)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = model(static_x)
    return g, out
