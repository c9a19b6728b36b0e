# A reducer whose buckets are objects of their own class, told at construction where to put
# their buffer: add_grad() fills the bucket on the current stream, flush() reduces it on the
# communication stream, and nothing makes that stream wait for the copies.
import torch
import torch.distributed as dist


class Bucket:
    def __init__(self, numel, device):
        self.buffer = torch.zeros(numel, device=device)
        self.offset = 0


class BucketedReducer:
    def __init__(self, bucket_numel):
        self.comm_stream = torch.cuda.Stream()
        self.bucket = Bucket(bucket_numel, torch.device("cuda"))

    def add_grad(self, p):
        n = p.grad.numel()
        self.bucket.buffer[self.bucket.offset:self.bucket.offset + n].copy_(p.grad.view(-1))
        self.bucket.offset += n

    def flush(self):
        with torch.cuda.stream(self.comm_stream):
            dist.all_reduce(self.bucket.buffer)  # expect: SL101
        torch.cuda.current_stream().wait_stream(self.comm_stream)
        self.bucket.offset = 0
