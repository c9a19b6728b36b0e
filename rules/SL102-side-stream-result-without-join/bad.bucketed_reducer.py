# A bucketed gradient reducer: add_grad() copies gradients into self.buffer on the current
# stream, reduce() all-reduces the bucket on self.comm_stream (after waiting for the current
# stream), and unflatten() copies the result back into the gradients on the current stream with
# no wait for the comm stream: it can read the bucket before the all-reduce has written it, and
# the next step's add_grad() can overwrite the bucket while the all-reduce still reads it.
import torch
import torch.distributed as dist


class BucketReducer:
    def __init__(self, params, bucket_numel):
        self.params = list(params)
        self.comm_stream = torch.cuda.Stream()
        self.buffer = torch.zeros(bucket_numel, device="cuda")
        self.offset = 0

    def add_grad(self, grad):
        n = grad.numel()
        self.buffer[self.offset:self.offset + n].copy_(grad.view(-1))  # expect: SL102
        self.offset += n

    def reduce(self):
        self.comm_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.comm_stream):
            dist.all_reduce(self.buffer)
            self.buffer.div_(dist.get_world_size())

    def unflatten(self):
        offset = 0
        for p in self.params:
            n = p.numel()
            p.grad.copy_(self.buffer[offset:offset + n].view_as(p))  # expect: SL102
            offset += n
        self.offset = 0
