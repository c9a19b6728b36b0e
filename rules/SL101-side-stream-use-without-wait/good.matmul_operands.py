# bad.matmul_operands.py with the fork: the side stream waits for the stream that computed `h`.
import torch


def overlapped(x, w1, w2, side):
    h = x @ w1
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        g = h @ w2
    torch.cuda.current_stream().wait_stream(side)
    return g + h
