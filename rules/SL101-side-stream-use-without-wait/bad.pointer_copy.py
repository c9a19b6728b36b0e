# An all-gather written with raw copies: the function works on `compute_stream` (handed in),
# fills this rank's slot there, then copies every slot on `ag_stream` through the slots'
# addresses. It joins `ag_stream` back after, but never makes `ag_stream` wait for
# `compute_stream` first: the copies can read the slot before it is filled.
import torch


def copy_bytes(dst_ptr, src_ptr, nbytes, stream):
    torch.cuda.cudart().cudaMemcpyAsync(dst_ptr, src_ptr, nbytes, stream.cuda_stream)


def all_gather(shard: torch.Tensor, slots: torch.Tensor, rank: int, ag_stream, compute_stream):
    with torch.cuda.stream(compute_stream):
        slots[rank].copy_(shard)
    with torch.cuda.stream(ag_stream):
        for peer in range(slots.shape[0]):
            copy_bytes(slots[rank].data_ptr() + peer * 64, slots[peer].data_ptr(), 64, ag_stream)  # expect: SL101
    compute_stream.wait_stream(ag_stream)


def gather_shards(shard: torch.Tensor, slots: torch.Tensor, nbytes: int, ag_stream, compute_stream):
    # The same with the copy's source made on `compute_stream` just before.
    with torch.cuda.stream(compute_stream):
        shard.mul_(2)
    with torch.cuda.stream(ag_stream):
        copy_bytes(slots.data_ptr(), shard.data_ptr(), nbytes, ag_stream)  # expect: SL101
    compute_stream.wait_stream(ag_stream)
