# An autograd.Function that overlaps its forward matmul on a side stream. autograd calls
# forward() with tensors produced on the caller's current stream (and backward() with gradients
# produced there): the side stream must wait for that stream before it reads them. forward()
# never does; backward() does.
import torch

side = torch.cuda.Stream()


class OverlappedMatmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        with torch.cuda.stream(side):  # expect: SL101
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
