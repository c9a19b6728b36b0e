"""A program that profiles itself with torch.profiler. Under `streamlint run` it must still get
its CUDA events (streamlint yields CUPTI to the profiler); prints how many it got."""
import torch
from torch.profiler import ProfilerActivity, profile

x = torch.randn(1024, 1024, device="cuda")
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(50):
        x = torch.relu(x @ x / 1024.0)
    torch.cuda.synchronize()
cuda_events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
print(f"profiler cuda events: {len(cuda_events)}")
