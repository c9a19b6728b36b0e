# Near miss of bad.model_parallel.py: the lengths are read once, before the loop.
import torch
from megatron.core import parallel_state as mpu


def preprocess_packed_seqs(input_ids: torch.Tensor, attention_mask: torch.Tensor):
    cp_size = mpu.get_context_parallel_world_size()
    lengths = attention_mask.sum(dim=1).tolist()
    out = []
    for i in range(input_ids.shape[0]):
        out.append(input_ids[i, : lengths[i]] // cp_size)
    return out
