"""A training loop whose CUDA work partly runs on threads that run none of the user's code: a
DataLoader with pin_memory=True (its pin-memory thread pins every batch in torch's
pin_memory.py) and backward() (autograd's device thread queues the backward's kernels, copies and
allocations). `streamlint report` places those threads' calls at the user lines that set them off:
the `for x, y in loader:` line (it starts the pin-memory thread) and `loss.backward()`."""
import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(4096, 1024), torch.randn(4096, 1024))
    loader = DataLoader(data, batch_size=256, shuffle=True, num_workers=2, pin_memory=True)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(3):
        for x, y in loader:
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
