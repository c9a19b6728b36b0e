from typing import Optional

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
        if loss.item() > 1e3:  # expect: SL302
            break


def per_key_index(batch, n):
    for key, val in batch.items():
        idx = torch.tensor([0, n - 1], device=val.device)  # expect: SL302
        batch[key] = val.index_select(1, idx)


def denoise(pipe, n, device):
    timesteps, num_steps = pipe.retrieve_timesteps(n, device)
    for i, t in enumerate(timesteps):
        t_norm = t.expand(4)[0].item()  # expect: SL302


def ragged(logits, lens_list, device):
    lens = torch.tensor(lens_list).to(device)
    for i in range(4):
        logits[i][: lens[i]]  # expect: SL302


def per_layer(src, count, layers):
    count = count.cuda()
    for layer in layers:
        src = src.repeat_interleave(count, dim=0)  # expect: SL302


class Connector(torch.nn.Module):
    def forward(self, hidden: torch.Tensor, mask: torch.Tensor, n: int):
        return [hidden[i, mask[i].bool(), :] for i in range(n)]  # expect: SL302


def python_counts_from_the_gpu(model, loader, device):
    for batch in loader:
        out = model(batch.to(device, non_blocking=True))
        pads = [0] * out.sum()  # expect: SL302
        for i in range(out.argmax()):  # expect: SL302
            pass


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
    if peak.item() > 0:  # expect: SL302
        output.zero_()


def instrument(model):
    model.register_forward_hook(activation_stats)


class SyncingBlock(torch.nn.Module):
    def forward(self, x):
        y = self.inner(x)
        torch.cuda.synchronize()  # expect: SL302
        return y


# One-time set-up is left out by name (good.py), but not what it defines to run later, nor
# functions whose names only look like set-up.
class Prefetcher(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.norm = torch.zeros(1, device="cuda")

        def clip_hook(grad):  # runs on every backward
            if self.norm.item() > 1.0:  # expect: SL302
                return grad * 0.5
            return grad

        for p in self.parameters():
            p.register_hook(clip_hook)

        def gather(params):  # stored on each layer, called per step
            for p in params:
                p.data = p.data.to("cuda")  # expect: SL302

        for layer in layers:
            layer.gather = gather


def load_batch(loader, device):
    # `load_` alone is not set-up: loading the next batch runs every step.
    for batch in loader:
        yield batch.to(device)  # expect: SL302


def log_probs(x: torch.Tensor):
    x = x.cuda()
    for i in range(4):
        x = x.log()
        if x.max().item() > 0:  # expect: SL302 (torch's log, not logging)
            break


def small_placeholders(names):
    # Three elements are a real (blocking) upload, once per name.
    device = torch.device("cuda")
    for name in names:
        bias = torch.Tensor(3).to(device)  # expect: SL302


# Leaving when verbose, the rest runs on the common path, every step: not a guard. An arm that
# does work before it leaves is a branch of its own, not a guard of what follows.
class NormClipper(Callback):
    def on_before_optimizer_step(self, trainer, optimizer):
        if trainer.verbose:
            return
        norm = torch.zeros(1, device="cuda")
        trainer.last_norm = norm.item()  # expect: SL302


def checked_norms(params, log_every):
    norms = []
    for step, p in enumerate(params):
        if step % log_every != 0:
            print("skipped")
            continue
        total = p.grad.cuda().norm()  # expect: SL302
        norms.append(total.item())  # expect: SL302
    return norms


# The same helper called from per-step code as well (or handed out as a callback) runs every
# step: its callers do not make it set-up.
class ResizedTables(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self._register_offsets(sizes)

    def _register_offsets(self, sizes):
        for i, n in enumerate(sizes):
            self.register_buffer(f"offset_{i}", torch.tensor([n]).to("cuda"))  # expect: SL302

    def forward(self, x, sizes):
        self._register_offsets(sizes)  # (a callee's blocking copies are reported in the callee)
        return x


class CallbackTables(nn.Module):
    def __init__(self, sizes, hooks):
        super().__init__()
        self._register_offsets(sizes)
        hooks.append(self._register_offsets)

    def _register_offsets(self, sizes):
        for i, n in enumerate(sizes):
            self.register_buffer(f"offset_{i}", torch.tensor([n]).to("cuda"))  # expect: SL302



# A Module whose base comes from another file and that only wraps a model it was given: its
# forward takes tensors, so it is a Module's forward all the same.
class PipelinedDenoiser(BaseDenoiser):
    def forward(self, latents: torch.Tensor, t: torch.Tensor):
        out = self.model(latents, t)
        torch.cuda.synchronize()  # expect: SL302
        return out


# Functions that frameworks call every step, known by their names.
def update_step_context(ctx):
    ctx.start_loc = torch.tensor([0], device="cuda")  # expect: SL302
    return ctx


class ThroughputMeter(Callback):
    def on_train_batch_end(self, trainer, outputs):
        tokens = torch.zeros(1, device="cuda")
        trainer.seen += tokens.item()  # expect: SL302


# Logging in the training loop itself (a backward every iteration) with no interval guard:
# every step pays the read, so it is not left out as deliberate logging.
def train_with_progress(model, opt, scaler, loader, pbar):
    for step, batch in enumerate(loader):
        loss = model(batch.cuda(non_blocking=True))
        scaler.scale(loss).backward()  # GradScaler: still the CUDA loss's backward
        scaler.step(opt)
        pbar.set_description(f"step {step} loss {loss.item():.3f}")  # expect: SL302


def train_printing(model, opt, loader):
    for batch in loader:
        loss = model(batch.cuda(non_blocking=True))
        loss.backward()
        opt.step()
        print(f"loss {loss.item():.3f}")  # expect: SL302


# A helper that a Module's forward calls on every call runs every step too.
def lengths_to_mask(lens: torch.Tensor, max_len: int):
    steps = torch.arange(max_len).to(lens.device)  # expect: SL302
    return steps[None, :] < lens[:, None]


class MaskedEncoder(nn.Module):
    def forward(self, x: torch.Tensor, lens: torch.Tensor):
        mask = lengths_to_mask(lens, x.shape[1])
        return x * mask[..., None]


# A helper's arm chosen by its arguments alone runs on every call given such arguments: here
# whenever forward passes `ptr` (also after an early return that dispatches on the device).
def segment_softmax(src: torch.Tensor, ptr: Optional[torch.Tensor] = None, dim: int = 0):
    if ptr is not None and src.device.type == "cpu":
        return torch.softmax(src, dim)
    if ptr is not None and ptr.dim() == 1:
        count = ptr[1:] - ptr[:-1]
        peak = src.max().expand(ptr.numel() - 1)
        peak = peak.repeat_interleave(count, dim=dim)  # expect: SL302
        return (src - peak).exp()
    elif isinstance(ptr, torch.Tensor):
        return src
    else:
        n = int(src.sum().item())  # expect: SL302
        return src / n


def batch_speakers(batch: list, n: int):
    if len(batch) < 14:
        return torch.tensor([0] * n).cuda()  # expect: SL302
    return batch[13]


class SegmentAttention(nn.Module):
    def forward(self, x: torch.Tensor, ptr: Optional[torch.Tensor] = None):
        return segment_softmax(x, ptr), batch_speakers(self.batch, x.shape[0])


# The upload-only loop of set-up code is a stall when it runs every step: in forward, the first
# upload waits for the previous step's work each time.
class ScaledHeads(nn.Module):
    def forward(self, x: torch.Tensor, scales: list):
        consts = []
        for s in scales:
            consts.append(torch.tensor([s], device=x.device))  # expect: SL302
        return x * torch.cat(consts)


# An upload bound to a name may feed work the analysis cannot see (an op on a weight of unknown
# device): the loop is not taken for upload-only.
def merged_weights(weight, token_indices, deltas, device):
    for name in token_indices:
        index = torch.tensor(token_indices[name]).to(device)  # expect: SL302
        weight = weight.index_copy(0, index, deltas[name])
    return weight


# The same upload on the common path of the step (the `try` body) runs every step.
class PlaceholderTrainer:
    def train_step(self, model, batch):
        try:
            zero = torch.tensor(0.0).cuda()  # expect: SL302
            loss = model(batch) + zero
        except OverflowError:
            loss = None
        return loss


# The common path (not exporting, `if not self.onnx_trace:`) runs every forward.
class MaskedEmbedder(nn.Module):
    def forward(self, x: torch.Tensor):
        y = x.cuda() * 2
        pads = y.eq(0)
        if not self.onnx_trace:
            if pads.any():  # expect: SL302
                y = torch.where(pads, y.new_zeros(1), y)
        return y


# Moving a batch to the device says no state is placed: `move_batch_to_device` runs every step.
def move_batch_to_device(batches, device):
    for b in batches:
        b["ids"] = torch.tensor(b["raw"]).cuda()  # expect: SL302


# A closure called on every iteration of a loop is the loop's body under another name: its
# reads (an `if` arm too) stall once per item (lmdeploy adac4b18: `.tolist()` per output).
def send_responses(outputs, respond):
    scores = torch.rand(len(outputs), 8, device="cuda")

    def send(i, out):
        if out is not None:
            respond(out, scores[i].tolist())  # expect: SL302

    def send_all(outs):
        for i, out in enumerate(outs):
            send(i, out)  # a sibling closure, called per item

    def count(i):
        return int(scores[i].argmax())  # expect: SL302

    while outputs:
        send_all(outputs)
        total = sum(count(i) for i in range(4))
        outputs = respond(None, total)


# A closure that forward() calls on every call runs every step, like a helper of the file.
class SkipOnOverflow(nn.Module):
    def __init__(self):
        super().__init__()
        self.found_inf = torch.zeros(1, device="cuda")

    def forward(self, x):
        def overflowed():
            return bool(self.found_inf)  # expect: SL302

        skip = overflowed()
        return x if skip else x * 2


# An input of forward that the body reads as a tensor came in on the module's device, like an
# annotated one: a KV cache's end index kept as a CUDA scalar is read every forward (FastVideo
# 959dbcc8).
class CachedAttention(nn.Module):
    def forward(self, q, k, kv_cache=None):
        if kv_cache is None:
            return q
        end = kv_cache["end"].item()  # expect: SL302
        kv_cache["k"][:, end : end + k.shape[1]] = k
        return q


# An upload added into an accumulator is GPU work in the loop (`acc += t` runs on the GPU like
# `acc + t`): each blocking copy waits for the previous add, per sentence (fairseq2 c7bb1387,
# chrF statistics; the accumulator is registered state of unknown device).
class ChrfStats(Metric):
    def __init__(self, device=None):
        super().__init__(device=device)
        self._add_state("stats", torch.zeros(6, device=device))

    def update(self, all_stats):
        for stats in all_stats:
            self.stats += torch.tensor(stats, device="cuda")  # expect: SL302
# `max(1, n)` compares a Python number with a GPU scalar: `1 < n` makes a GPU bool that the
# host reads (litgpt 47806045, the token count of a chunked cross-entropy).
def train_tokens(model, steps, vocab):
    for _ in range(steps):
        x = torch.randint(vocab, (8, 128), device="cuda")
        y = torch.randint(vocab, (8, 128), device="cuda")
        logits = model(x)
        n = (y != -1).sum()
        loss = logits.float().logsumexp(-1).sum() / max(1, n)  # expect: SL302
        loss.backward()


def skip_nan_steps(model, loader, opt):
    # A NaN check that changes what the step does is the step's own work, not a check.
    for batch in loader:
        loss = model(batch.cuda(non_blocking=True)).mean()
        if torch.isnan(loss).any():  # expect: SL302
            loss = torch.zeros_like(loss)
        loss.backward()
        opt.step()
