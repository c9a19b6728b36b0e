# The device module kept in a local (`dev = torch.cuda`, or whichever accelerator runs): its
# Stream(), stream(s) and current_stream() are torch.cuda's. The copy reads `half` on the side
# stream with no wait for the current stream that produced it.
import torch


def stage(weight, buf):
    dev = torch.cuda
    s = dev.Stream()
    half = weight.half()
    with dev.stream(s):
        buf.copy_(half, non_blocking=True)  # expect: SL101
    dev.current_stream().wait_stream(s)
    return buf
