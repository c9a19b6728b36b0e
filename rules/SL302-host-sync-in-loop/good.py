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
