"""SL904 fixed: record_stream tells the allocator about the comm stream's use."""
import torch

comm = torch.cuda.Stream()
for step in range(3):
    grad = torch.randn(4096, 4096, device="cuda")  # produced on the default stream
    comm.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(comm):
        bucket = grad * 0.5
    grad.record_stream(comm)
    del grad
    fresh = torch.ones(4096, 4096, device="cuda")
    torch.cuda.current_stream().wait_stream(comm)
    bucket.record_stream(torch.cuda.current_stream())
    print(step, float(bucket[0, 0] + fresh[0, 0]))
