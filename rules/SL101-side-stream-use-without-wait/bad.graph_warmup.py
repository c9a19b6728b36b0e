# The warm-up before a CUDA graph capture runs the model on a side stream (as torch's docs do),
# but the side stream never waits for the stream that produced the static input: the warm-up
# can read it before it is written. The model is a parameter and the input has no annotation:
# a model called inside a CUDA stream's region runs its work there, on the GPU.
import torch


def capture(model, static_x):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):  # expect: SL101
        for _ in range(3):
            model(static_x)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = model(static_x)
    return g, out
