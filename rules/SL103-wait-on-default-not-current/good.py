import torch


class Overlap:
    def __init__(self):
        self.comm_stream = torch.cuda.Stream()

    def launch(self):
        self.comm_stream.wait_stream(torch.cuda.current_stream())

    def finish(self):
        torch.cuda.current_stream().wait_stream(self.comm_stream)


def capture(g, step):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.default_stream())  # moot: entering the capture syncs the device
    with torch.cuda.stream(s), torch.cuda.graph(g, stream=s):
        step()


def offload_chunks(chunks, offload):
    # The default stream is this function's named work stream: the compute runs in a region on
    # it, so waiting on it (and making it wait) orders exactly that work.
    compute = torch.cuda.default_stream()
    for c in chunks:
        with torch.cuda.stream(compute):
            c.mul_(2)
        offload.wait_stream(compute)
        with torch.cuda.stream(offload):
            c.copy_(c * 2)
    compute.wait_stream(offload)
    compute.synchronize()


def capture_parts(g, step):
    from decoding import SeparateGraphs

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.default_stream())  # moot: the capture below syncs the device
    parts = SeparateGraphs()  # not work on `s`: nothing between needs the wait
    with torch.cuda.stream(s), torch.cuda.graph(g, stream=s):
        step(parts)
