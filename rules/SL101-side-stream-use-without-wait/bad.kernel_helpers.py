# A GEMM writes its output through a Triton kernel on the current stream; a reduction kernel
# on the communication stream reads that output. The buffers come from a context object, so
# only the kernels say they are device memory: the GEMM's kernel stores through `out_ptr`,
# the reduction's loads through `in_ptr` (a block pointer on it). Nothing makes the
# communication stream wait for the current stream: it can read the output before the GEMM
# has written it.
import torch
import triton
import triton.language as tl


@triton.jit
def gemm_kernel(a_ptr, b_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs * stride)
    b = tl.load(b_ptr + offs)
    tl.store(out_ptr + offs, a * b, mask=offs < n)


@triton.jit
def reduce_kernel(in_ptr, out_ptr, n, BLOCK: tl.constexpr):
    block = tl.make_block_ptr(base=in_ptr, shape=(n,), strides=(1,), offsets=(0,), block_shape=(BLOCK,), order=(0,))
    tl.atomic_add(out_ptr, tl.sum(tl.load(block)))


def produce(a, b, out):
    gemm_kernel[(1,)](a, b, out, out.numel(), 1, BLOCK=1024)


def reduce(buf, result):
    reduce_kernel[(1,)](buf, result, buf.numel(), BLOCK=1024)


def gemm_reduce(a, b, ctx):
    out = ctx.gemm_buffer(a)
    result = ctx.result_buffer()
    produce(a, b, out)
    with torch.cuda.stream(ctx.comm_stream):
        reduce(out, result)  # expect: SL101
    torch.cuda.current_stream().wait_stream(ctx.comm_stream)
    return result
