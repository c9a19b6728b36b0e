# A layer-wise weight prefetcher: prefetch() uploads each weight on the copy stream into a stash
# on `self`, use() joins the copy stream and hands the weights to the layer on the current
# stream, release() drops them. The weights came from the copy stream's pool, and nothing
# records them for the current stream: once release() deletes an entry, the next prefetch can
# reuse the block while the layer still reads it.
import torch


class WeightPrefetcher:
    def __init__(self, host_weights):
        self.host = host_weights
        self.copy_stream = torch.cuda.Stream()
        self.gpu = {}

    def prefetch(self):
        with torch.cuda.stream(self.copy_stream):
            for name, w in self.host.items():
                gpu_w = w.to("cuda", non_blocking=True)
                self.gpu[name] = gpu_w

    def use(self, layer):
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        for name, p in layer.named_parameters():
            p.data = self.gpu[name]

    def release(self):
        for name in list(self.gpu):
            del self.gpu[name]  # expect: SL201
