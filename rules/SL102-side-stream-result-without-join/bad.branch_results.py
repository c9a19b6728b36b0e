# A reduction fills its output on the communication stream when it can overlap, and on the
# current stream otherwise. The helper and its kernel say the output is written (the kernel
# stores through `out_ptr`). On the overlapping path nothing makes the current stream wait for
# the communication stream before the output is returned: the caller can read it before it is
# written. The fallback arm writing the same output on the current stream does not order the
# other arm's write.
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
            reduce(buf, output)  # expect: SL102
    else:
        reduce(buf, output)
    return output
