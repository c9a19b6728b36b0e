# Losses read on the host every step. Nothing says where these values live except their names
# and use: a loss is computed from the model's outputs, on the device the model runs on, and
# this file uses CUDA. (From litgpt's validate loops, OpenRLHF's PPO step, FastVideo's trainer.)
import torch


def chunked_cross_entropy(logits, targets):
    return torch.nn.functional.cross_entropy(logits, targets)


@torch.no_grad()
def validate(model, batches, eval_iters):
    losses = torch.zeros(eval_iters)
    for k, (input_ids, targets) in enumerate(batches):
        loss = chunked_cross_entropy(model(input_ids), targets)
        losses[k] = loss.item()  # expect: SL302
    return losses.mean()


class Actor:
    def training_step(self, experience):
        kl_loss = self.kl(experience)
        return {"kl": kl_loss.detach().item()}  # expect: SL302

    def fit(self, loader):
        sums = {}
        for batch in loader:
            loss_map = self.method.step(batch.cuda(non_blocking=True))
            for k, v in loss_map.items():
                sums[k] = sums.get(k, 0.0) + float(v.detach().item())  # expect: SL302
        return sums
