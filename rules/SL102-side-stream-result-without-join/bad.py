import torch

side = torch.cuda.Stream()


def used_after_region(x: torch.Tensor):
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = torch.relu(x)
    z = y + 1  # expect: SL102
    print(y.sum().item())  # expect: SL102
    return z


def returned(x: torch.Tensor):
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = torch.sigmoid(x)  # expect: SL102
    return y
