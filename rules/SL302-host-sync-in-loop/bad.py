import torch


def train(model, loader, opt, x: torch.Tensor):
    total = 0.0
    for batch in loader:
        loss = torch.nn.functional.mse_loss(x, x * 2)
        total += loss.item()  # expect: SL302
        torch.cuda.synchronize()  # explicit sync: deliberate, not flagged
    step = 0
    while step < 10:
        losses = [t.item() for t in x.unbind()]  # expect: SL302
        step += 1
    return total


# Code that runs every step although no loop is in sight: the same stall, once per step.
import torch.nn as nn
from torch.autograd import Function


class OverflowSkip(nn.Module):
    def __init__(self):
        super().__init__()
        self.found_inf = torch.zeros(1, device="cuda")

    def forward(self, x):
        if self.found_inf.item() > 0:  # expect: SL302
            return x
        return x * 2


class ScaledGrad(Function):
    @staticmethod
    def forward(ctx, x):
        scale = torch.ones(1, device="cuda")
        return x * scale.item()  # expect: SL302

    @staticmethod
    def backward(ctx, grad):
        return grad


class ClippingSGD(torch.optim.Optimizer):
    def step(self, closure=None):
        norm = torch.zeros(1, device="cuda")
        if norm.item() > 1.0:  # expect: SL302
            pass


def activation_stats(module, inputs, output):
    peak = torch.zeros(1, device="cuda")
    print(peak.item())  # expect: SL302


def instrument(model):
    model.register_forward_hook(activation_stats)
