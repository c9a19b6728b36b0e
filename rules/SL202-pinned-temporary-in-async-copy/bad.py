import torch


def upload(batch_size: int):
    gpu = torch.ones(batch_size).pin_memory().to("cuda", non_blocking=True)  # expect: SL202
    staging = torch.empty(batch_size, pin_memory=True)
    dst = staging.cuda(non_blocking=True)
    del staging  # expect: SL202
    return gpu, dst
