# The same patch with the cached helper: every layer still asks, but only the first one of a
# step computes (the device handed over here is the hidden states', as some models do).
import torch
from transformers.models.qwen3.modeling_qwen3 import Qwen3Attention

from moe.packing import packed_info


def qwen3_attention_forward(self, hidden_states, position_embeddings=None, **kwargs):
    info = packed_info(kwargs, hidden_states.device)
    q = self.q_proj(hidden_states).to(torch.bfloat16)
    return self.o_proj(q), info


def patch_qwen3():
    Qwen3Attention.forward = qwen3_attention_forward
