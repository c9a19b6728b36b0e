# A bucketed gradient reducer: add_grad() copies gradients into self.buffer on the current
# stream, and reduce() all-reduces the bucket on self.comm_stream. No method makes the comm
# stream wait for the current stream, so the all-reduce can read the bucket before the copies
# have written it. (unflatten() joins the comm stream back correctly.)
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
        self.buffer[self.offset:self.offset + n].copy_(grad.view(-1))
        self.offset += n

    def reduce(self):
        with torch.cuda.stream(self.comm_stream):
            dist.all_reduce(self.buffer)  # expect: SL101
            self.buffer.div_(dist.get_world_size())

    def unflatten(self):
        torch.cuda.current_stream().wait_stream(self.comm_stream)
        offset = 0
        for p in self.params:
            n = p.numel()
            p.grad.copy_(self.buffer[offset:offset + n].view_as(p))
            offset += n
        self.offset = 0
