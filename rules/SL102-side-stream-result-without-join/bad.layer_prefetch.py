# Layer-by-layer weight prefetch: while layer i runs, prefetch() uploads layer i+1's weights
# on a copy stream, replacing each parameter's storage. forward() then calls the next layer,
# which runs with those weights on the current stream, but nothing makes the current stream
# wait for the copy stream: the layer can read weights still being uploaded.
import torch


class LayerPrefetcher:
    def __init__(self, layers):
        self.layers = layers
        self.copy_stream = torch.cuda.Stream()

    def prefetch(self, i):
        with torch.cuda.stream(self.copy_stream):
            for p in self.layers[i].parameters():
                p.data = p.data.to("cuda", non_blocking=True)

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            if i + 1 < len(self.layers):
                self.prefetch(i + 1)
            x = layer(x)  # expect: SL102
        return x
