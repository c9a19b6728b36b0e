# bad.pointer_copy.py with the fork: `ag_stream` waits for `compute_stream` before its copies.
import torch


def copy_bytes(dst_ptr, src_ptr, nbytes, stream):
    torch.cuda.cudart().cudaMemcpyAsync(dst_ptr, src_ptr, nbytes, stream.cuda_stream)


def all_gather(shard: torch.Tensor, slots: torch.Tensor, rank: int, ag_stream, compute_stream):
    with torch.cuda.stream(compute_stream):
        slots[rank].copy_(shard)
    ag_stream.wait_stream(compute_stream)
    with torch.cuda.stream(ag_stream):
        for peer in range(slots.shape[0]):
            copy_bytes(slots[rank].data_ptr() + peer * 64, slots[peer].data_ptr(), 64, ag_stream)
    compute_stream.wait_stream(ag_stream)


def gather_shards(shard: torch.Tensor, slots: torch.Tensor, nbytes: int, ag_stream, compute_stream):
    with torch.cuda.stream(compute_stream):
        shard.mul_(2)
    ag_stream.wait_stream(compute_stream)
    with torch.cuda.stream(ag_stream):
        copy_bytes(slots.data_ptr(), shard.data_ptr(), nbytes, ag_stream)
    compute_stream.wait_stream(ag_stream)
