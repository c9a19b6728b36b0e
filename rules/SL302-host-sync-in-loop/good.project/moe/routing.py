import torch


def tokens_per_expert(num_tokens: int, num_experts: int) -> list:
    # Given Python numbers, not GPU tensors: nothing here waits for the GPU.
    sizes = torch.full((num_experts,), num_tokens // num_experts)
    return sizes.tolist()
