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


def forward_and_backward_in_one_statement(model, x: torch.Tensor, s):
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        model(x).sum().backward()  # the forward runs here, on s


def grad_with_respect_to_a_leaf(w: torch.Tensor, x: torch.Tensor, s):
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        loss = (w * x).sum()
        torch.autograd.grad(loss, w)  # w is a leaf made elsewhere; the graph is built here


def _step(model, x: torch.Tensor):
    out = torch.relu(x)
    out.sum().backward()


def helper_runs_forward_and_backward(model, x: torch.Tensor, s):
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        _step(model, x)


def merged_then_backward(parts, grad, s):
    # The root comes out of a tuple unpack of a call made in the region: the forward ran here.
    from ops import merge_attentions

    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        out, lse = merge_attentions(parts)
        out.backward(grad, retain_graph=True)


# Through a callee, a backward is as sure as the callee's own: here the loss's device is a guess
# (the tensors come from elsewhere), and the forward may well have run on this stream too.
def run_schedule_of_closures(recv, layer):
    def fwd(k):
        recv[k] = layer(recv[k])

    def bwd(k):
        (0.5 * (recv[k].float() ** 2).sum() + 0.0 * recv[k].float().sum()).backward()

    def schedule():
        fwd(0)
        bwd(0)

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            schedule()
    torch.cuda.current_stream().wait_stream(s)


def warm_up_closure(block, loss_fn, dtype):
    # CUDA-graph warm-up: the closure runs the captured module's forward and the backward, both
    # inside the region (TransformerEngine's test_numerics).
    optimizer = torch.optim.SGD(block.parameters(), lr=0.1)
    static_input = torch.randn(4, 4, device="cuda", dtype=dtype, requires_grad=True)
    static_target = torch.randn(4, 4, device="cuda", dtype=dtype)

    def train_step():
        optimizer.zero_grad(set_to_none=False)
        out = block(static_input)
        loss = loss_fn(out, static_target)
        loss.backward()
        optimizer.step()
        return out

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            train_step()
    torch.cuda.current_stream().wait_stream(s)
