# A loss is computed on every training step, wherever the training loop is (another file, a
# framework's Trainer): a function named as the computation of one runs every step, and a host
# read in it stalls every step (litgpt's chunked_cross_entropy: `max(1, count)` on a GPU count).
import torch
import torch.nn.functional as F


def chunked_cross_entropy(logits: torch.Tensor, targets: torch.Tensor, ignore_index: int = -100):
    loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=ignore_index, reduction="sum")
    non_masked = (targets != ignore_index).sum()
    return loss / max(1, non_masked)  # expect: SL302


class DistillTrainer:
    def compute_loss(self, model, inputs):
        logits = model(inputs["input_ids"].cuda(non_blocking=True))
        mask = inputs["attention_mask"].cuda(non_blocking=True)
        n_tokens = mask.sum().item()  # expect: SL302
        return (logits.float().logsumexp(-1) * mask).sum() / n_tokens
