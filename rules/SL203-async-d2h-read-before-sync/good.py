import torch


def sample(logits: torch.Tensor):
    host = logits.to("cpu", non_blocking=True)
    done = torch.cuda.Event()
    done.record()
    done.synchronize()
    return host.tolist()


def blocking(logits: torch.Tensor):
    host = logits.to("cpu")
    return host.tolist()


def synced(x: torch.Tensor, n: int):
    pinned = torch.empty(n, pin_memory=True)
    pinned.copy_(x, non_blocking=True)
    torch.cuda.synchronize()
    print(pinned)


def to_cpu_view(tensor: torch.Tensor):
    # .numpy() of the pending host copy is a view of the same memory, not a read: the caller
    # synchronizes before it reads the array (Megatron-LM's moe_utils.maybe_move_tensor_to_cpu).
    cpu_tensor = tensor.to(torch.device("cpu"), non_blocking=True)
    cpu_tensor = cpu_tensor.numpy()
    return cpu_tensor
