# Lightning logs a Python number by uploading it: `torch.tensor(value, device=self.device)`, a
# blocking copy that waits for the step's queued GPU work. Logged every step (a training step,
# a per-batch callback), that is a stall per step — NeMo 294ddff1 removed it from its data
# sampler. A switch that turns logging on for the whole run (`if self.output_log:`) does not
# make it occasional.
import lightning.pytorch as pl
import torch


class LitGPT(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        loss = self(batch["input_ids"].cuda(non_blocking=True)).mean()
        self.log("train_loss", loss)
        lr = self.optimizers().param_groups[0]["lr"]
        self.log("lr", lr, prog_bar=True)  # expect: SL302
        self.log("num_tokens", len(batch["input_ids"]))  # expect: SL302
        return loss


class DataSampler(pl.Callback):
    def __init__(self, output_log=True):
        self.output_log = output_log

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        consumed_samples = self.compute_consumed_samples(batch_idx + 1)
        if self.output_log:
            pl_module.log("consumed_samples", consumed_samples, batch_size=1)  # expect: SL302

    def compute_consumed_samples(self, steps):
        return steps * 32
