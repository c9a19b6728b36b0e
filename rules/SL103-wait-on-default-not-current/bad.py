import torch
from torch.cuda import default_stream


class Overlap:
    def __init__(self):
        self.comm_stream = torch.cuda.Stream()

    def launch(self):
        self.comm_stream.wait_stream(torch.cuda.default_stream())  # expect: SL103

    def finish(self):
        default_stream().wait_stream(self.comm_stream)  # expect: SL103


def side_step(x, side):
    # The default stream held in a variable is still not the current stream: no region here
    # puts this function's work on it.
    compute = torch.cuda.default_stream()
    side.wait_stream(compute)  # expect: SL103
    with torch.cuda.stream(side):
        x.mul_(2)


def warm_then_capture(g, x, step):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.default_stream())  # expect: SL103
    with torch.cuda.stream(s):
        step(x)  # warm-up on `s` before the capture: this work needs the right wait
    with torch.cuda.stream(s), torch.cuda.graph(g, stream=s):
        step(x)
