import time
import torch

a = torch.randn(256, 256, device="cuda")
start = time.time()
for i in range(100):
    c = torch.mm(a, a)
end = time.time()  # expect: SL501


def timed_step(x: torch.Tensor):
    t0 = time.perf_counter()
    y = torch.relu(x)
    t1 = time.perf_counter()  # expect: SL501
    return t1 - t0


def work(x: torch.Tensor):
    return torch.matmul(x, x)


def through_call(x: torch.Tensor):
    t0 = time.time()
    work(x)
    return time.time() - t0  # expect: SL501


def sync_only_in_other_branch(x: torch.Tensor, flag):
    t0 = time.time()
    y = x * 2
    if flag:
        torch.cuda.synchronize()
    return time.time() - t0  # expect: SL501


class ImageEncoder:
    def __init__(self, path):
        self.model = load_model(path)

    def forward(self, images):
        # A model called in code that uses CUDA launches kernels: the interval closes before
        # they finish.
        t0 = time.perf_counter()
        feats = self.model.forward(images)
        t1 = time.perf_counter()  # expect: SL501
        return feats, t1 - t0


def time_gpu_module(x):
    net = Net().cuda()
    t0 = time.perf_counter()
    y = net(x)
    return y, time.perf_counter() - t0  # expect: SL501
