import torch


def forward_and_backward_on_side_stream(model, x: torch.Tensor, s):
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = torch.relu(x)
        loss = y.sum()
        loss.backward()
    torch.cuda.current_stream().wait_stream(s)


def backward_outside_region(loss: torch.Tensor, s):
    loss.backward()
    with torch.cuda.stream(torch.cuda.current_stream()):
        loss.backward()


def backward_of_a_value_that_never_meets_a_stream(loss):
    loss.backward()  # no side stream anywhere near: nothing to judge
