"""SL904 bad: a tensor used on a comm stream is freed without record_stream; the allocator
reuses its memory on the default stream while the comm stream may still read it."""
import torch

comm = torch.cuda.Stream()
for step in range(3):
    grad = torch.randn(4096, 4096, device="cuda")  # produced on the default stream
    comm.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(comm):
        bucket = grad * 0.5         # the comm stream reads grad
    del grad                        # freed: no grad.record_stream(comm)
    fresh = torch.ones(4096, 4096, device="cuda")  # reuses grad's memory on the default stream
    torch.cuda.current_stream().wait_stream(comm)
    print(step, float(bucket[0, 0] + fresh[0, 0]))
