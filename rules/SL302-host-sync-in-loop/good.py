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
