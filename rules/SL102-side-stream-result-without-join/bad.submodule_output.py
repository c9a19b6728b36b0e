# Two towers of a module's forward, one on a side stream: the forward forks the stream but
# returns the sum without joining it, so the current stream can add `ya` before the side
# stream's tower has written it. (No `.cuda()` here: the forward's CUDA stream says where the
# submodules run.)
import torch


class TwoTower(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 8)
        self.b = torch.nn.Linear(8, 8)
        self.side = torch.cuda.Stream()

    def forward(self, x):
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            ya = self.a(x)
        yb = self.b(x)
        return ya + yb  # expect: SL102
