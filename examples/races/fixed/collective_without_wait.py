"""SL904 fixed: work.wait() orders the all-reduce before the result is used.

ProcessGroupNCCL runs the collective on its own stream (after making it wait for the current
one); the result is ordered for the current stream only by work.wait(). One rank is enough:
NCCL is still called with the buffers (it launches nothing on one GPU).
"""
import os

import torch
import torch.distributed as dist

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29533")
dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda", 0))
grad = torch.randn(1 << 22, device="cuda")
for step in range(3):
    grad.mul_(0.5)
    work = dist.all_reduce(grad, async_op=True)
    work.wait()
    scaled = grad * 2
    print(step, float(scaled[0]))
dist.destroy_process_group()
