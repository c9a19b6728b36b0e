# bad.bucket_object.py with the fork: the communication stream waits for the stream that filled
# the bucket before it reduces it.
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
        self.comm_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.comm_stream):
            dist.all_reduce(self.bucket.buffer)
        torch.cuda.current_stream().wait_stream(self.comm_stream)
        self.bucket.offset = 0
