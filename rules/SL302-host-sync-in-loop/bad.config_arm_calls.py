# Helpers that forward calls in an arm chosen by configuration (a setting's or an argument's
# truth or None-ness) run every step of that configuration, and so do the helpers they call,
# up to three levels. FastVideo 959dbcc8: the KV-cache indices read with .item() in a helper of
# a helper of forward, only when a cache is given.
import torch
import torch.nn as nn


def _update_kv_cache_and_attend(q, k, v, kv_cache, start):
    end = start + k.shape[1]
    if end > kv_cache["global_end_index"].item():  # expect: SL302
        kv_cache["k"][:, start:end] = k
        kv_cache["v"][:, start:end] = v
    kv_cache["global_end_index"].fill_(end)
    return q @ kv_cache["k"].transpose(-1, -2)


class ActionModule(nn.Module):
    def __init__(self, n, enable_mouse=True):
        super().__init__()
        self.proj = nn.Linear(n, n).cuda()
        self.enable_mouse = enable_mouse

    def _forward_mouse(self, x, kv_cache, start):
        q = self.proj(x)
        if kv_cache is None:
            return q
        else:
            return _update_kv_cache_and_attend(q, q, q, kv_cache, start)

    def forward(self, x: torch.Tensor, mouse=None, kv_cache=None, start=0):
        if self.enable_mouse and mouse is not None:
            x = self._forward_mouse(x, kv_cache, start)
        return x
