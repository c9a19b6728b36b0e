# A side stream made once by a module helper and cached in a global: no function of the module
# ever makes it wait, so no caller can have ordered it after the stream the inputs were made on.
import torch

_COPY_STREAM = None


def copy_stream():
    global _COPY_STREAM
    if _COPY_STREAM is None:
        _COPY_STREAM = torch.cuda.Stream()
    return _COPY_STREAM


def scale_async(batch: torch.Tensor):
    s = copy_stream()
    with torch.cuda.stream(s):  # expect: SL101
        out = batch * 2
    s.synchronize()
    return out
