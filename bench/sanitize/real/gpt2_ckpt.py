"""A GPT-2-sized transformers model built from its config (no download: GPT2Config,
GPT2LMHeadModel), n_embd 768, 12 heads, 4 layers (of GPT-2's 12, to be fast), bf16 autocast,
gradient checkpointing on, token batches from a copy stream (prefetch.py). SL904 must find
nothing; the mutants drop one of the driver's edges (prefetch.py).

    python gpt2_ckpt.py --steps 200 [--mutant no-batch-wait|no-batch-record-stream] [--time]
"""
import torch
from transformers import GPT2Config, GPT2LMHeadModel
from common import StepTimer, args
from prefetch import Prefetcher

a = args({"no-batch-wait": None, "no-batch-record-stream": None})
torch.manual_seed(0)
config = GPT2Config(n_layer=4, n_embd=768, n_head=12, n_positions=512, vocab_size=50257)
model = GPT2LMHeadModel(config).cuda().train()
model.gradient_checkpointing_enable()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
host = [(torch.randint(0, config.vocab_size, (4, 256)).pin_memory(),) for _ in range(4)]
loader = Prefetcher(host, a.mutant)
timer = StepTimer(a)
for step in range(a.steps):
    (ids,) = loader.get()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    del ids
    timer.step(step)
print(f"gpt2 checkpointing={model.is_gradient_checkpointing} loss {loss.item():.4f}", flush=True)
