# Activation offloading through saved_tensors_hooks: autograd calls pack() with each tensor the
# forward saves, produced on the forward's current stream. The copy to the host runs on a side
# stream that never waits for that stream, so it can copy the activation before it is written.
import torch
from torch.autograd.graph import saved_tensors_hooks


class OffloadActivations(saved_tensors_hooks):
    def __init__(self):
        self.copy_stream = torch.cuda.Stream()
        self.stash = {}

        def pack(activation: torch.Tensor) -> int:
            key = len(self.stash)
            with torch.cuda.stream(self.copy_stream):  # expect: SL101
                host = torch.empty(activation.shape, dtype=activation.dtype, pin_memory=True, device="cpu")
                host.copy_(activation, non_blocking=True)
            self.stash[key] = (host, activation)
            return key

        def unpack(key: int) -> torch.Tensor:
            host, activation = self.stash.pop(key)
            return activation

        super().__init__(pack, unpack)
