# A helper run every step whose early return depends only on how the module was built
# (attributes set in `__init__` and never written again): in the configurations that skip the
# return, the rest runs on every call. litgpt 47806045 (`LoRAQKVLinear.zero_pad`).
import torch
import torch.nn as nn


class QKVLoRA(nn.Module):
    def __init__(self, n, enable_lora):
        super().__init__()
        self.linear = nn.Linear(n, 3 * n)
        self.enable_lora = enable_lora
        self.lora_ind = [i for i in range(3 * n) if enable_lora[i // n]]
        self.out_features = 3 * n

    def zero_pad(self, x: torch.Tensor) -> torch.Tensor:
        if all(self.enable_lora):
            return x
        result = x.new_zeros((*x.shape[:-1], self.out_features))
        ind = torch.tensor(self.lora_ind, device=result.device)  # expect: SL302
        return result.index_copy(-1, ind, x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x) + self.zero_pad(x)


class Head(nn.Module):
    def __init__(self, n, with_stats):
        super().__init__()
        self.proj = nn.Linear(n, n)
        self.with_stats = with_stats

    def stats(self, y: torch.Tensor):
        if self.with_stats:
            return y.abs().max().item()  # expect: SL302
        return None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.proj(x.cuda())
        self.stats(y)
        return y
