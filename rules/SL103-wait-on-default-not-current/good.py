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
