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
