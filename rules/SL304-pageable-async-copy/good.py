import numpy as np
import torch


def upload(array: np.ndarray, loader_batch):
    batch = torch.from_numpy(array).pin_memory()
    gpu = batch.to("cuda", non_blocking=True)
    pinned = torch.empty(16, pin_memory=True)
    ids = pinned.cuda(non_blocking=True)
    plain = torch.arange(16).cuda()           # blocking copy: honest about it
    other = loader_batch.to("cuda", non_blocking=True)   # memory kind unknown
    return gpu, ids, plain, other


def place_pipeline(stages):
    for i, stage_module in enumerate(stages):
        stage_module.cuda(torch.cuda.current_device())  # a plain, blocking move: nothing pretends
