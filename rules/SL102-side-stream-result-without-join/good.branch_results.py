# A reduction fills its output on the communication stream when it can overlap, and on the
# current stream otherwise. On the overlapping path the current stream waits for the
# communication stream right after the region, so the output is written before the caller
# reads it.
import torch
import triton
import triton.language as tl

_comm = torch.cuda.Stream()


@triton.jit
def reduce_kernel(in_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(in_ptr + offs))


def reduce(buf, out):
    reduce_kernel[(1,)](buf, out, BLOCK=128)


def reduce_op(buf, ctx, overlap):
    _comm.wait_stream(torch.cuda.current_stream())
    output = ctx.output_buffer()
    if overlap:
        with torch.cuda.stream(_comm):
            reduce(buf, output)
        torch.cuda.current_stream().wait_stream(_comm)
    else:
        reduce(buf, output)
    return output
