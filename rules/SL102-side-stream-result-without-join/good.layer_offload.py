# A layer-wise weight offloader: prefetch() uploads the next layer's weights from pinned host
# copies on a copy stream into a dict kept on self; swap_in() hands them to the module's
# parameters on the current stream, after making the current stream wait for the copy
# stream, so the layer runs on weights that have arrived.
import torch


class LayerOffload:
    def __init__(self, module, copy_stream, device):
        self.module = module
        self.copy_stream = copy_stream
        self.device = device
        self.host = {}
        self.gpu = {}

    def offload(self):
        for name, p in self.module.named_parameters():
            self.host[name] = p.data.detach().to("cpu").pin_memory()

    def swap_in(self):
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        for name, p in self.module.named_parameters():
            p.data = self.gpu[name]

    def prefetch(self):
        compute = torch.cuda.current_stream()
        with torch.cuda.stream(self.copy_stream):
            for name, _ in self.module.named_parameters():
                w = self.host[name].to(self.device, non_blocking=True)
                w.record_stream(compute)
                self.gpu[name] = w
