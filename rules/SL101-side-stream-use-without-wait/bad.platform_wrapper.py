# A platform wrapper: the project reaches torch.cuda (or torch.npu, torch.xpu) through an object
# it keeps, whose Stream(), stream(s) and current_stream() are torch.cuda's. The staging copy
# reads `half` on the side stream with no wait for the current stream that produced it.
import torch


def get_torch_device():
    """The device module of the platform this process runs on."""
    return torch.cuda


class WeightStager:
    def __init__(self):
        self.platform = get_torch_device()
        self.stream = self.platform.Stream()

    def stage(self, weight, buf):
        half = weight.half()
        with self.platform.stream(self.stream):
            buf.copy_(half, non_blocking=True)  # expect: SL101
        self.platform.current_stream().wait_stream(self.stream)
        return buf
