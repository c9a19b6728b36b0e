import time

import torch


def train(loader, x: torch.Tensor, log_interval: int):
    total = torch.zeros((), device="cuda")
    for step, batch in enumerate(loader):
        loss = torch.nn.functional.mse_loss(x, x * 2)
        total += loss.detach()
        if step % log_interval == 0:
            print(total.item())
    print(total.item())


def unknown_values(loader):
    for batch in loader:
        loss = batch["loss"]
        print(loss.item())  # no evidence that `loss` is a CUDA tensor


def cpu_statistics(x: torch.Tensor):
    # An annotation says "a tensor", not "on the GPU": no finding by default (low confidence).
    for i in range(3):
        print(x.sum().item())


def pinned_async_batches(model, loader, device):
    for inputs in loader:
        inputs = inputs.to(device, non_blocking=True)
        model(inputs)


def bundled_counts(pipe, n, device):
    # Parts of a call's result that read like counts are not taken for tensors.
    timesteps, num_steps = pipe.retrieve_timesteps(n, device)
    for i in range(3):
        if num_steps > 0:
            pass


def deliberate_blocking_copy(buffers, device):
    for b in buffers:
        b.data = b.data.to(device, non_blocking=False)  # the author chose to wait


def known_output_size(src, count, layers, total):
    count = count.cuda()
    for layer in layers:
        src = src.repeat_interleave(count, dim=0, output_size=total)


def enumerate_counter(xs, device):
    xs = xs.to(device)
    for i, x in enumerate(xs):
        if i == 0:
            continue


import torch.nn as nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.ones(1, device="cuda")
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.calls % 100 == 0:
            print(self.scale.item())  # under an interval guard: once every 100 steps
        assert x is not None, f"scale {self.scale.item()}"  # the message runs only on failure
        if self.calls < 0:
            raise ValueError(f"bad scale {self.scale.item()}")  # so does an exception's
        return x * self.scale

    def __repr__(self):
        # Formatting for people (deliberate code): performance notes are left out here.
        parts = []
        for i in range(4):
            parts.append(str(self.scale[0].item()))
        return ", ".join(parts)


def summary_once():
    # A plain helper, called once: not known to run every step.
    t = torch.zeros(1, device="cuda")
    return t.item()


class Recorder:
    # Not a Module: a method named forward is just a name.
    def forward(self):
        t = torch.zeros(1, device="cuda")
        return t.item()


# One-time set-up (deliberate code by name): construction, weight initialisation, loading and
# converting checkpoints, warm-up, calibration. The reads run once per model, not per step.
class Embeddings(nn.Module):
    def __init__(self, tables, device):
        super().__init__()
        self.offsets = []
        for t in tables:
            self.offsets.append(torch.tensor([t.rows], device=device).item())

        self.norm = torch.zeros(1, device=device)

    def reset_parameters(self):
        for p in self.parameters():
            if self.norm.item() > 1.0:
                p.data.mul_(0.5)

    def load_state_dict(self, state, strict=True):
        for k, v in state.items():
            state[k] = v.to("cuda")
        return super().load_state_dict(state, strict)


def warmup(model, sizes):
    for n in sizes:
        model(torch.zeros(n, device="cuda")).sum().item()


def convert_checkpoint(state, device):
    for k, v in state.items():
        state[k] = v.to(device)


# Logging: the value only goes to output (print, a logger, a tracker, a metrics dict).
import logging

logger = logging.getLogger(__name__)


def train_logged(model, loader, writer):
    metrics = {}
    for step, batch in enumerate(loader):
        loss = model(batch.cuda(non_blocking=True))
        print(f"loss {loss.item():.3f}")
        logger.info("step %d loss %.3f", step, loss.item())
        writer.add_scalar("loss", loss.item(), step)
        metrics["loss"] = loss.item()


# A guard that returns (or continues) when it fails guards what follows as `if should_report:`
# guards its body: the reads below run only on reporting steps.
class GradNormTracker(Callback):
    def on_before_optimizer_step(self, trainer, optimizer):
        if not trainer.should_report:
            return
        norm = torch.zeros(1, device="cuda")
        trainer.last_norm = norm.item()


def sampled_norms(params, log_every):
    norms = []
    for step, p in enumerate(params):
        if step % log_every != 0:
            continue
        total = p.grad.cuda().norm()
        norms.append(total.item())
    return norms


# A private helper whose only callers are set-up (`__init__`, `setup_*`) is set-up too: it
# runs once per construction, whatever its name says.
class ShardedTables(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self._register_offsets(sizes)

    def _register_offsets(self, sizes):
        for i, n in enumerate(sizes):
            self.register_buffer(f"offset_{i}", torch.tensor([n]).to("cuda"))



# Device code: a numba kernel's body runs on the GPU; indexing there is no host read.
from numba import cuda


@cuda.jit
def scale_kernel(x: torch.Tensor, n: int):
    for i in range(n):
        if x[i] > 0:
            x[i] = x[i] * 2


class RangeObserver(nn.Module):
    # A quantization observer runs only while calibrating: it records statistics (deliberate).
    def __init__(self):
        super().__init__()
        self.max_val = torch.zeros(1, device="cuda")

    def forward(self, x):
        if self.max_val.item() < x.abs().max().item():
            self.max_val.copy_(x.abs().max())
        return x


def empty_placeholders(names, device):
    # An empty tensor copies nothing: `.to(device)` returns before any transfer or wait.
    device = torch.device("cuda")
    for name in names:
        bias = torch.Tensor().to(dtype=torch.float16, device=device)
        ids = torch.LongTensor([]).to(device)


class PipelinedDenoiser(BaseDenoiser):
    def forward(self, latents: torch.Tensor, t: torch.Tensor):
        return self.model(latents, t)  # the caller synchronizes once, after the last step


class ConfigRecord(BaseRecord):
    # Based on another file's class, but its forward takes no tensors: not known to be a Module.
    def forward(self, name: str):
        return torch.zeros(1, device="cuda").item()


def update_step_context(ctx):
    ctx.start_loc = torch.zeros(1, dtype=torch.long, device="cuda")  # made on the GPU: no copy
    return ctx


def init_step_state(n):
    # Named after a step, but set-up: it runs once.
    return torch.tensor(list(range(n)), device="cuda")


def validation_logs(model, loader):
    for batch in loader:
        loss = model(batch.cuda(non_blocking=True))
        val_log = {
            "val_loss": loss.item(),
            "val_extra": torch.tensor(1.0).to(loss.device),
        }
        model.log_dict(val_log)


def train_with_progress(model, opt, loader, pbar, log_every: int):
    # The training loop's logging under an interval guard: one read every `log_every` steps.
    for step, batch in enumerate(loader):
        loss = model(batch.cuda(non_blocking=True))
        loss.backward()
        opt.step()
        if step % log_every == 0:
            pbar.set_description(f"step {step} loss {loss.item():.3f}")


# Helpers of forward whose sync runs once: lazy set-up, a cache refilled only when too short,
# and a helper that forward calls only on a branch.
class CachedPositions(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = None
        self.jitter = None

    def _extend(self, x: torch.Tensor):
        if self.table is not None and self.table.shape[0] >= x.shape[1]:
            return
        self.table = torch.arange(x.shape[1]).to(x.device)

    def _noise(self, x: torch.Tensor):
        if self.jitter is None:
            self.jitter = torch.tensor([0.99, 1.01], device=x.device)
        return self.jitter

    def _debug_stats(self, x: torch.Tensor):
        return x.abs().max().item()

    def forward(self, x: torch.Tensor, debug: bool = False):
        self._extend(x)
        if debug:
            print(self._debug_stats(x))
        return x * self._noise(x)[0] + self.table[: x.shape[1]]


# Arms a helper takes on some calls only, whatever its arguments: a module-level cache filled
# once, a flag computed from object state, and a length compared with a cached table's.
_OFFSETS = {}


def cached_offsets(sizes: torch.Tensor, key: str):
    if key not in _OFFSETS:
        _OFFSETS[key] = sizes.cumsum(0).tolist()
    return _OFFSETS[key]


def padded(x: torch.Tensor, table: torch.Tensor, state):
    grow = state.capacity < x.shape[0]
    if grow and x.shape[0] > 0:
        state.capacity = int(x.shape[0] * table.max().item())
    return x


class OffsetRouter(nn.Module):
    def forward(self, sizes: torch.Tensor, x: torch.Tensor):
        offsets = cached_offsets(sizes, "router")
        return padded(x, sizes, self.state), offsets


# Arms on the arguments that are not what each step runs: an empty input, another device
# than CUDA. An empty literal uploads nothing.
def scale_of(x: torch.Tensor):
    if x.numel() == 0:
        return torch.tensor([1.0], device=x.device)
    return x.abs().amax()


def rotary_ids(ids: torch.Tensor):
    if ids.device.type == "mps":
        ids = ids.to("cpu")
    return ids


class EmptyAwareBlock(nn.Module):
    def forward(self, x: torch.Tensor, ids: torch.Tensor, bias: torch.Tensor):
        grad_bias = torch.tensor([], dtype=torch.float32, device=bias.device)
        return x * scale_of(x), rotary_ids(ids), grad_bias


# A per-step callback that synchronizes to read its clock right: the measurement's own sync.
class ThroughputCallback:
    def on_train_batch_end(self, trainer, batch):
        if trainer.device.type == "cuda":
            torch.cuda.synchronize()
        elapsed = time.perf_counter() - self.t0
        self.samples.append(elapsed)


# A hook that removes its own handle is a one-shot check of the first batch.
class FirstBatchCheck:
    def __init__(self, module):
        def check_once(mod, args):
            same = torch.tensor(len(args), device="cuda")
            assert same.item() > 0
            self.handle.remove()

        self.handle = module.register_forward_pre_hook(check_once)


class FlagsFromALossTuple(nn.Module):
    # A parameter annotated as a tensor that arrives as a tuple: its flags are not tensors, and
    # `is_complex()` reads the dtype, not the data.
    def forward(self, loss: torch.Tensor, mask: torch.Tensor):
        if isinstance(loss, tuple):
            loss, tp_reduce, is_sequence_parallel = loss
            if tp_reduce or is_sequence_parallel:
                mask = mask[:, ::2]
        if not mask.is_complex():
            mask = mask.float()
        return loss * mask


# A loop that only turns host values into device tensors, handed straight to a list, queues no
# other GPU work: each blocking upload waits for its own copy and nothing idles behind it. Outside
# per-step code that is set-up (per-layer constants read from a file); low confidence, shown by
# `--min-confidence low`.
class QuantScales:
    @classmethod
    def load_scales(cls, pairs, device):
        scales, zeros = [], []
        for scale, offset in pairs:
            scales.append(torch.tensor([scale], device=device))
            zeros.append(torch.tensor([offset]).to(device))
        cls.scales, cls.zeros = scales, zeros


# An `except` handler runs after a failure (an out-of-memory retry, an overflow skip), not on
# the common path of a step: left out as deliberate code like a `raise`.
class OverflowTolerantTrainer:
    def train_step(self, model, batch):
        try:
            loss = model(batch)
            grad_norm = loss.detach()
        except OverflowError:
            grad_norm = torch.tensor(0.0).cuda()
        except RuntimeError:
            torch.cuda.empty_cache()
            raise
        return grad_norm


# A branch taken only while the model is exported or traced runs once, when the graph is
# recorded: `if self.onnx_trace:`, `if torch.onnx.is_in_onnx_export():`, `torch.jit.is_tracing()`.
class TraceableEmbedder(nn.Module):
    def forward(self, x: torch.Tensor):
        y = x.cuda() * 2
        pads = y.eq(0)
        if self.onnx_trace:
            if pads.any():
                y = torch.where(pads, y.new_zeros(1), y)
        if torch.jit.is_tracing():
            if pads.any():
                y = y + 1
        return y


# Placing an adapter's state on a device (`set_lora_device`, `_move_indices_to_device`) happens
# once, when the model is placed: one-time set-up by name.
class IndexedAdapter:
    def _move_indices_to_device(self, name: str, device):
        for buffers in (self.indices_a, self.indices_b):
            if name in buffers:
                buffers[name] = torch.tensor(buffers[name]).cuda()


# Closures that do not run per iteration: called once after the loop, under an interval guard,
# from one-time set-up; an explicit synchronize() in a per-item closure is deliberate, as it
# is in the loop itself.
def send_once(outputs, respond):
    scores = torch.rand(len(outputs), 8, device="cuda")

    def summary():
        return scores.sum().item()

    def log(step):
        print(scores[step].tolist())

    def drain(out):
        torch.cuda.synchronize()
        respond(out)

    for step, out in enumerate(outputs):
        drain(out)
        if step % 100 == 0:
            log(step)
    return summary()


class Table:
    def __init__(self, rows):
        cuda_rows = torch.tensor(rows, device="cuda")

        def width(i):
            return int(cuda_rows[i].max())

        self.widths = [width(i) for i in range(len(rows))]


# A closure of forward() called only on some calls (under an `if`), and a closure's lazy
# set-up (after its early return): not every step.
class MaybeChecked(nn.Module):
    def __init__(self):
        super().__init__()
        self.found_inf = torch.zeros(1, device="cuda")
        self.checked = False

    def forward(self, x, check: bool = False):
        def overflowed():
            return bool(self.found_inf)

        def table():
            if self.checked:
                return x
            self.checked = bool(self.found_inf.sum())
            return x

        if check:
            if overflowed():
                return x
        return table() * 2


# The fix keeps the KV cache's end index a Python int (no tensor read); a forward input named
# for the host (`lengths_cpu`), annotated as a number (`step: int`) or rebound from another
# value is not taken as on the GPU, nor an entry of an input dict that forward only reads
# (settings passed as scalar tensors, NeMo's clustering `param_dict`).
class CachedAttentionIntIndex(nn.Module):
    def forward(self, q, k, kv_cache=None, lengths_cpu=None, steps=None, cfg=None, step: int = 0):
        if kv_cache is None:
            return q
        end = kv_cache["end"]
        kv_cache["k"][:, end : end + k.shape[1]] = k
        kv_cache["end"] = end + k.shape[1]
        sizes = lengths_cpu.tolist()
        steps = self.schedule(steps)
        thres = float(cfg["thres"].item())
        return q.split(sizes), steps.item(), thres * step.item()


# The fix of ChrfStats (bad.py): sum the statistics on the host, upload once per batch.
class ChrfStatsOnce(Metric):
    def __init__(self, device=None):
        super().__init__(device=device)
        self._add_state("stats", torch.zeros(6, device=device))

    def update(self, all_stats):
        total = [sum(col) for col in zip(*all_stats)]
        self.stats += torch.tensor(total, device="cuda")
# `n.clamp(min=1)` keeps the count on the GPU; `max()` of host numbers reads nothing; `max(xs)`
# with one argument is not judged (a list of host ints is no tensor).
def train_tokens(model, steps, vocab, lengths):
    for _ in range(steps):
        x = torch.randint(vocab, (8, 128), device="cuda")
        y = torch.randint(vocab, (8, 128), device="cuda")
        logits = model(x)
        n = (y != -1).sum()
        loss = logits.float().logsumexp(-1).sum() / n.clamp(min=1)
        loss = loss / max(1, x.shape[0]) / max(lengths)
        loss.backward()


# The function adds `seqlens` to a tensor it builds on the CPU (no device=), which torch
# allows only for CPU tensors: `cu_seqlens` is a host tensor despite its annotation, and the
# per-sequence reads are host reads (TransformerEngine pad_thd_sequences_for_cp, judged wrong).
def padded_positions(cu_seqlens: torch.Tensor, multiple: int) -> torch.Tensor:
    torch.cuda.nvtx.range_push("pad")
    seqlens = cu_seqlens[1:] - cu_seqlens[:-1]
    pads = [(-l.item()) % multiple for l in seqlens]
    starts = [s.item() for s, e in zip(cu_seqlens[:-1], cu_seqlens[1:])]
    padded = seqlens + torch.tensor(pads, dtype=seqlens.dtype)
    return torch.cat([torch.tensor([0], dtype=cu_seqlens.dtype), padded.cumsum(0)]), starts


class ShiftTable(torch.nn.Module):
    # A parameter built from a host tensor moves with its module (Module.to/.cuda): `.to()` of
    # it in forward is a no-op once the model is on the GPU, not a copy per step (diffusers).
    def __init__(self, dim):
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(1, 2, dim))

    def forward(self, hidden: torch.Tensor, temb: torch.Tensor):
        shift, scale = (self.table.to(temb.device) + temb.unsqueeze(2)).chunk(2, dim=2)
        return hidden * (1 + scale) + shift
