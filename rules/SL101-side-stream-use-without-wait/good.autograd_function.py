# The autograd.Function of bad.autograd_function.py with the wait in forward() too.
import torch

side = torch.cuda.Stream()


class OverlappedMatmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            y = x @ w
        torch.cuda.current_stream().wait_stream(side)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            gx = grad @ w.t()
        torch.cuda.current_stream().wait_stream(side)
        return gx, None
