# A side stream taken from a helper that caches one per device. The region's output is allocated
# from that stream's pool; the caller joins the stream and uses the output on the current stream,
# but once `out` is dropped the allocator may hand its memory to the next side-stream allocation
# while the current stream's kernels still read it.
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
    return out * 2  # expect: SL201
