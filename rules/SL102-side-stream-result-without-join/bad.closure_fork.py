# An all-gather overlapped with a matmul: the function forks `ag_stream` from the current stream,
# and a closure defined beside it, `gather()`, hands that stream to the copy helper. Under
# `serial` the function joins right after the gather; on the other path it returns with nothing
# making the current stream wait for `ag_stream`, so the caller can read `out` before the copies
# land (the join under `if serial:` never runs on that path).
import torch


def copy_shards(shards, out, stream):
    with torch.cuda.stream(stream):
        for i, shard in enumerate(shards):
            out[i].copy_(shard, non_blocking=True)


def all_gather_matmul(shards, out, x, w, serial=False, ag_stream=None):
    ag_stream = torch.cuda.Stream() if ag_stream is None else ag_stream
    current = torch.cuda.current_stream()
    ag_stream.wait_stream(current)

    def gather():
        copy_shards(shards, out, ag_stream)

    if serial:
        gather()
        current.wait_stream(ag_stream)
    else:
        gather()
    y = torch.matmul(x, w)
    return y  # expect: SL102
