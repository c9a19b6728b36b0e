# Named after the loss, but not its per-step computation: reporting (`log_loss`), loss-scale
# bookkeeping, set-up, tests. And the fixed loss keeps the division on the GPU.
import torch
import torch.nn.functional as F


def chunked_cross_entropy(logits: torch.Tensor, targets: torch.Tensor, ignore_index: int = -100):
    loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=ignore_index, reduction="sum")
    non_masked = (targets != ignore_index).sum()
    return loss / non_masked.maximum(torch.ones_like(non_masked))


def log_loss(writer, loss: torch.Tensor, step: int):
    writer.add_scalar("train/loss", loss.item(), step)


def update_loss_scale(scale: torch.Tensor, found_inf: torch.Tensor):
    if found_inf.item():
        scale.mul_(0.5)


def get_loss_weights(counts: torch.Tensor):
    return (counts.sum() / counts.clamp(min=1)).tolist()


def test_loss_is_finite():
    loss = chunked_cross_entropy(torch.randn(2, 3, 5, device="cuda"), torch.zeros(2, 3, dtype=torch.long, device="cuda"))
    assert torch.isfinite(loss).item()
