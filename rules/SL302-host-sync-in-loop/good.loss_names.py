# Loss-named values that are not GPU losses read every step.
import numpy as np
import torch


def evaluate(model, batches):
    losses = torch.zeros(len(batches))  # a host tensor: reading it costs nothing
    for k, batch in enumerate(batches):
        losses[k] = model(batch.cuda(non_blocking=True)).mean()
    for k in range(len(batches)):
        print(losses[k].item())
    host_losses = np.array([1.0, 2.0])
    for loss in host_losses:
        print(loss.item())  # numpy scalars
    return losses


class Trainer:
    def train(self, loader, scaler):
        for batch in loader:
            out = self.model(batch.cuda(non_blocking=True))
            self.loss_fn.zero_grad()
            # `loss_scale`, `loss_weight`: settings named after the loss, not losses
            print(self.loss_scale.item(), self.loss_weight.item())
            out.backward()

    def log_once(self, loss):
        return loss.item()  # once per call, not in a loop


def cpu_metrics_cpu(loss_dict):
    # named as CPU code
    return {k: v.detach().item() for k, v in loss_dict.items()}


def train(model, loader, optimizer, pbar):
    # A loss known by its name alone, read for a progress bar: the name is no evidence inside a
    # logging call (what is logged is judged by other evidence).
    for batch in loader:
        out = model(batch)
        out.sum().backward()
        loss = model.last_loss
        optimizer.step()
        pbar.set_postfix({"loss": loss.item()})
