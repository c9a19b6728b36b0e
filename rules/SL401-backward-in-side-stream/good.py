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


def untyped_backward_is_no_evidence(loss, s):
    with torch.cuda.stream(s):
        loss.backward()  # `loss` has no tensor evidence: no finding
