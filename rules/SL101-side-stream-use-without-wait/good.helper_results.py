# Offloading a layer's weights: a module helper hands back each weight, and the copy to host
# memory runs on a copy stream, which first waits for the current stream: the weights the
# current stream wrote are complete before the copy reads them.
import torch

_copy = torch.cuda.Stream()


def _weight_of(module, name):
    return getattr(module, name).detach()


def offload(module, names, host_buffers):
    weights = [_weight_of(module, n) for n in names]
    _copy.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(_copy):
        for host, w in zip(host_buffers, weights):
            w.record_stream(_copy)
            host.copy_(w, non_blocking=True)
