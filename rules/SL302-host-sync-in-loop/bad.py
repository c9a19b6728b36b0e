import torch


def train(model, loader, opt, x: torch.Tensor):
    x = x.cuda()
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


def training_loop(model, loss_fn, loader, device):
    for inputs, labels in loader:
        inputs = inputs.to(device)  # expect: SL302
        labels = labels.to(device, non_blocking=True)
        loss = loss_fn(model(inputs), labels)
        print(f"loss {loss.item():.3f}")  # expect: SL302


def per_key_index(batch, n):
    for key, val in batch.items():
        idx = torch.tensor([0, n - 1], device=val.device)  # expect: SL302
        batch[key] = val.index_select(1, idx)
