# bad.prefetch_stash.py with each weight recorded for the stream that will read it.
import torch


class WeightPrefetcher:
    def __init__(self, host_weights):
        self.host = host_weights
        self.copy_stream = torch.cuda.Stream()
        self.gpu = {}

    def prefetch(self):
        compute = torch.cuda.current_stream()
        with torch.cuda.stream(self.copy_stream):
            for name, w in self.host.items():
                gpu_w = w.to("cuda", non_blocking=True)
                gpu_w.record_stream(compute)
                self.gpu[name] = gpu_w

    def use(self, layer):
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        for name, p in layer.named_parameters():
            p.data = self.gpu[name]

    def release(self):
        for name in list(self.gpu):
            del self.gpu[name]
