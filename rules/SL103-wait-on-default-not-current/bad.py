import torch
from torch.cuda import default_stream


class Overlap:
    def __init__(self):
        self.comm_stream = torch.cuda.Stream()

    def launch(self):
        self.comm_stream.wait_stream(torch.cuda.default_stream())  # expect: SL103

    def finish(self):
        default_stream().wait_stream(self.comm_stream)  # expect: SL103
