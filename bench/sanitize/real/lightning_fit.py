"""Lightning `Trainer.fit` on one GPU with a DataLoader of two forked workers (pin_memory) and a
LightningModule that computes an activation statistic on a side stream: the side stream waits
for the step's stream, the activation is recorded on it (record_stream), and the next step's
stream waits for the side stream before it reads the statistic. SL904 must find nothing; the
mutants drop one of those edges in the module.

    python lightning_fit.py --steps 200 [--mutant no-side-wait|no-side-join|no-side-record-stream] [--time]
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from common import StepTimer, args

try:
    import lightning.pytorch as pl
except ImportError:
    import pytorch_lightning as pl

a = args({"no-side-wait": None, "no-side-join": None, "no-side-record-stream": None})
WIDTH, BATCH = 1024, 64


class Random(Dataset):
    """Made in the workers (forked after the parent initialized CUDA: they never touch it)."""

    def __len__(self):
        return a.steps * BATCH

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(WIDTH, generator=g), torch.randn(1, generator=g)


class Module(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(WIDTH, 4 * WIDTH), nn.GELU(), nn.Linear(4 * WIDTH, WIDTH), nn.GELU())
        self.head = nn.Linear(WIDTH, 1)
        self.side, self.pending = None, None
        self.register_buffer("stat_sum", torch.zeros(WIDTH))

    def training_step(self, batch, i):
        x, y = batch
        cur = torch.cuda.current_stream()
        if self.side is None:
            self.side = torch.cuda.Stream()
        if self.pending is not None:
            if a.mutant != "no-side-join":
                cur.wait_stream(self.side)
            self.stat_sum += self.pending  # the statistic of the last step, made on the side stream
        h = self.body(x)
        if a.mutant != "no-side-wait":
            self.side.wait_stream(cur)
        with torch.cuda.stream(self.side):
            self.pending = h.detach().square().mean(0)
        if a.mutant != "no-side-record-stream":
            h.record_stream(self.side)
        return (self.head(h) - y).square().mean()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-4)


class Timing(pl.Callback):
    def __init__(self):
        self.timer = StepTimer(a)

    def on_train_batch_end(self, trainer, module, outputs, batch, i):
        self.timer.step(i)


loader = DataLoader(Random(), batch_size=BATCH, num_workers=2, multiprocessing_context="fork", pin_memory=True,
                    persistent_workers=True)
trainer = pl.Trainer(accelerator="gpu", devices=1, max_steps=a.steps, max_epochs=1, logger=False,
                     enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                     callbacks=[Timing()])
module = Module()
trainer.fit(module, loader)
print(f"lightning steps {trainer.global_step} stat {module.stat_sum.sum().item():.4f}", flush=True)
