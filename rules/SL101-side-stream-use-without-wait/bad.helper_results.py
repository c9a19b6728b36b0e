# Offloading a layer's weights: a module helper hands back each weight, and the copy to host
# memory runs on a copy stream. The weights were made by work the current stream queued (the
# layer's last update); the copy stream reads them through `zip(...)` with no wait for that
# stream, so it can copy them before they are written.
import torch

_copy = torch.cuda.Stream()


def _weight_of(module, name):
    return getattr(module, name).detach()


def offload(module, names, host_buffers):
    weights = [_weight_of(module, n) for n in names]
    with torch.cuda.stream(_copy):
        for host, w in zip(host_buffers, weights):
            w.record_stream(_copy)
            host.copy_(w, non_blocking=True)  # expect: SL101
