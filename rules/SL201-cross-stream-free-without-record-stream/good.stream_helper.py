# bad.stream_helper.py with the record_stream its output needs: the allocator keeps `out`'s
# memory until the current stream's work on it is done.
import torch

_streams = {}


def get_side_stream(device):
    if device not in _streams:
        _streams[device] = torch.cuda.Stream(device)
    return _streams[device]


def overlapped_norm(x: torch.Tensor):
    s = get_side_stream(x.device)
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        out = torch.nn.functional.layer_norm(x, x.shape[-1:])
    torch.cuda.current_stream().wait_stream(s)
    out.record_stream(torch.cuda.current_stream())
    return out * 2
