# bad.submodule_output.py with the join. (`ya` needs no record_stream: it goes back to the side
# stream's pool, where the next allocation comes after the next call's fork.)
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
        torch.cuda.current_stream().wait_stream(self.side)
        return ya + yb
