# bad.argument_written.py joined three ways: the function makes the current stream wait before
# it returns; a second function hands the write over as an event the caller waits on; a third
# queues the write and the protocol's own `wait()` joins the stream later.
import torch


class Gatherer:
    def __init__(self):
        self.stream = torch.cuda.Stream()
        self.done = torch.cuda.Event()

    def gather_into(self, out: torch.Tensor, shards: list):
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            out.copy_(torch.cat(shards))
        torch.cuda.current_stream().wait_stream(self.stream)

    def gather_async(self, out: torch.Tensor, shards: list):
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            out.copy_(torch.cat(shards))
            self.done.record()
        return self.done


class Prefetcher:
    def __init__(self):
        self.copy_stream = torch.cuda.Stream()

    def prefetch(self, dst: torch.Tensor, src: torch.Tensor):
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            dst.copy_(src, non_blocking=True)

    def wait(self):
        torch.cuda.current_stream().wait_stream(self.copy_stream)


def copy_on(stream: torch.cuda.Stream, dst: torch.Tensor, src: torch.Tensor):
    # The stream is the caller's: it joins it where it needs the result.
    with torch.cuda.stream(stream):
        dst.copy_(src, non_blocking=True)


def barrier():
    torch.cuda.synchronize()


def gather_then_barrier(out: torch.Tensor, shards: list):
    # A helper that synchronizes the device orders every stream's work before the return.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out.copy_(torch.cat(shards))
        y = out * 2
    barrier()
    return y
