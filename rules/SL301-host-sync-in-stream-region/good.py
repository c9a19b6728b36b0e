import torch

side = torch.cuda.Stream()


def step(x: torch.Tensor, stats):
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = torch.relu(x)
        y = torch.where(y > 10, y / 10, y)   # stays on the GPU
        n = y.numel()                          # metadata: no sync
        shape = y.shape
    torch.cuda.current_stream().wait_stream(side)
    print(y.sum().item())                      # after the join: outside the region
    if stats is not None:                      # identity test, not a tensor bool
        stats.append(n)


def logged_step(x: torch.Tensor, logger):
    # Logging is deliberate code: the read is the price of showing the value (left out by
    # default; --check-deliberate-code shows it).
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = torch.relu(x)
        logger.info("max %f", y.max().item())
    torch.cuda.current_stream().wait_stream(side)
