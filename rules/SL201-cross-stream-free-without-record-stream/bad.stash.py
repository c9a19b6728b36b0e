# An activation offloader: the pack hook copies each activation to the host on a side stream
# and keeps it alive in a stash on `self` until the copy is done; a later call deletes old
# entries. Deleting an entry frees the activation for the stream that allocated it (the current
# one), and nothing makes that stream wait for the copy first: new work can reuse the memory
# while the side stream is still reading it. (`with self.copy_stream:` makes it current, as
# `torch.cuda.stream(...)` does.)
import torch


class Offloader:
    def __init__(self, keep: int = 2):
        self.copy_stream = torch.cuda.Stream()
        self.stash = {}
        self.keep = keep
        self.next_id = 0

    def pack(self, activation: torch.Tensor):
        for old in [k for k in self.stash if k <= self.next_id - self.keep]:
            del self.stash[old]  # expect: SL201
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with self.copy_stream:
            host = torch.empty_like(activation, device="cpu", pin_memory=True)
            host.copy_(activation, non_blocking=True)
        done = self.copy_stream.record_event()
        self.stash[self.next_id] = (activation, done)
        self.next_id += 1
        return host
