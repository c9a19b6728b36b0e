# Near misses of bad.config_arms.py: the early return depends on state that changes after
# construction (a cache filled on the first call, a flag another method sets, a step counter),
# so what follows it does not run on every call.
import torch
import torch.nn as nn


class QKVLoRA(nn.Module):
    def __init__(self, n, enable_lora):
        super().__init__()
        self.linear = nn.Linear(n, 3 * n)
        self.lora_ind = [i for i in range(3 * n) if enable_lora[i // n]]
        self.out_features = 3 * n
        self.merged = False
        self._ind = None

    def merge(self):
        self.merged = True

    def index(self, device) -> torch.Tensor:
        if self._ind is not None:
            return self._ind
        self._ind = torch.tensor(self.lora_ind, device=device)
        return self._ind

    def zero_pad(self, x: torch.Tensor) -> torch.Tensor:
        if self.merged:
            return x
        result = x.new_zeros((*x.shape[:-1], self.out_features))
        return result.index_copy(-1, torch.tensor(self.lora_ind, device=result.device), x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x) + self.zero_pad(x) + self.index(x.device).sum()


class Head(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.proj = nn.Linear(n, n)
        self.calls = 0

    def stats(self, y: torch.Tensor):
        self.calls += 1
        if self.calls % 100:
            return None
        return y.abs().max().item()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.proj(x.cuda())
        self.stats(y)
        return y
