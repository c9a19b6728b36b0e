import numpy as np
import torch


def upload(array: np.ndarray, out: torch.Tensor):
    batch = torch.from_numpy(array)
    gpu = batch.to("cuda", non_blocking=True)  # expect: SL304
    ids = torch.arange(16).cuda(non_blocking=True)  # expect: SL304
    out.copy_(batch, non_blocking=True)  # expect: SL304
    return gpu, ids


def place_pipeline(stages):
    # A module's parameters were made by its constructor in pageable memory.
    for i, stage_module in enumerate(stages):
        stage_module.cuda(torch.cuda.current_device(), non_blocking=True)  # expect: SL304
