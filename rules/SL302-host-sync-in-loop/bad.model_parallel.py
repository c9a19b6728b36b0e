# A file that splits the model across GPUs with Megatron's parallel state handles the model's
# tensors, on the GPU, although it never names CUDA (verl dc8b5076: packing sequences for the
# model's forward with one D2H read per sample).
import torch
from megatron.core import parallel_state as mpu


def preprocess_packed_seqs(input_ids: torch.Tensor, attention_mask: torch.Tensor):
    cp_size = mpu.get_context_parallel_world_size()
    out = []
    for i in range(input_ids.shape[0]):
        n = attention_mask[i].sum().item()  # expect: SL302
        out.append(input_ids[i, :n] // cp_size)
    return out
