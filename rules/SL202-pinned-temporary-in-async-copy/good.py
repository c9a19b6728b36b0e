import torch


class Uploader:
    def __init__(self, n: int):
        self.staging = torch.empty(n, pin_memory=True)

    def upload(self):
        dst = self.staging.cuda(non_blocking=True)
        return dst


def upload_then_sync(n: int):
    staging = torch.empty(n, pin_memory=True)
    dst = staging.cuda(non_blocking=True)
    torch.cuda.synchronize()
    del staging
    return dst
