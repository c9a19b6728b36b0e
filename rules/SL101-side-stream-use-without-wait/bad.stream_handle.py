# A custom operator takes the raw handle of the stream it runs on (`s.cuda_stream`, as CUDA
# Python, ctypes and most extension ops do): the op reads `x` on the side stream, which never
# waits for the stream that produced `x`.
import torch


def scale_on_side(x, out, side):
    torch.ops.mylib.scale(x, out, side.cuda_stream)  # expect: SL101
    torch.cuda.current_stream().wait_stream(side)
    return out
