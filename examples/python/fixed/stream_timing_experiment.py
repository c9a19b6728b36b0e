import torch
import time

# GPU warmup; allocate once, before any stream region (one allocator pool).
a = torch.randn(10000, 10000, device='cuda')
b = torch.randn(10000, 10000, device='cuda')
c = torch.mm(a, b)

# Count calculation time: synchronize before reading the clock on both ends, otherwise the
# interval measures only how long it takes to *queue* 100 launches.
torch.cuda.synchronize()
calc_start = time.time()
for i in range(100):
    c = torch.mm(a, b)
torch.cuda.synchronize()
calc_end = time.time()
print(f"calc time: {calc_end - calc_start}")

# Count stream time: the side stream waits for a and b (made on the current stream), and
# reuses them instead of allocating inside the region.
calc_stream = torch.cuda.Stream()
calc_stream.wait_stream(torch.cuda.current_stream())
torch.cuda.synchronize()
stream_start = time.time()
with torch.cuda.stream(calc_stream):
    for i in range(100):
        c = torch.mm(a, b)
calc_stream.synchronize()
stream_end = time.time()
print(f"stream time: {stream_end - stream_start}")
torch.cuda.current_stream().wait_stream(calc_stream)
