import torch


def step(x: torch.Tensor):
    s = torch.cuda.Stream()  # expect: SL602
    with torch.cuda.stream(s):
        y = x * 2
    return y


def overlap(chunks):
    for c in chunks:
        s = torch.cuda.Stream()  # expect: SL602
        done = torch.cuda.Event()  # expect: SL602


def fresh_in_with(x: torch.Tensor):
    with torch.cuda.stream(torch.cuda.Stream()):  # expect: SL602
        pass
