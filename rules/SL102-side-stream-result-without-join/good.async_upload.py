# bad.async_upload.py with the join: the caller's stream waits for the copy stream before the
# batch is handed over.
import torch


class BatchMover:
    def __init__(self):
        self.copy_stream = torch.cuda.Stream()

    def move(self, batch):
        with torch.cuda.stream(self.copy_stream):
            moved = {k: v.cuda(non_blocking=True) for k, v in batch.items()}
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        return moved
