"""Runs the user's forward/backward overlap on a GPU so that `streamlint run` can measure it.

    streamlint run --out logs/seed -- python3 examples/overlap/python/train_overlap.py --variant seed
    streamlint report logs/seed examples/python/seed

--variant seed  imports examples/python/seed/overlapped_forward_backward.py unchanged: micro-batch
                1's backward() inside a side-stream region (SL401).
--variant fixed imports examples/python/fixed/overlapped_forward_backward.py: micro-batch 0's
                forward on the side stream while micro-batch 1's backward runs on the current one.

Each step runs micro-batch 1's forward, then the overlap function (backward of 1 + forward of 0),
then micro-batch 0's backward, like one slot of a 1F1B pipeline schedule. Layers are narrow
(few thread blocks per kernel) so that two streams can share the GPU at all.
"""
import argparse
import importlib.util
import pathlib
import sys
import time
import types
import typing

import torch

ROOT = pathlib.Path(__file__).resolve().parents[3]


def load_user_function(variant):
    # The user's file imports `tuple` from typing, which no Python provides, and a Megatron helper.
    # Provide both rather than edit the user's lines: the report pairs findings by line.
    typing.tuple = tuple
    utils = types.ModuleType("megatron.core.utils")
    utils.get_attr_wrapped_model = lambda model, attr: getattr(model, attr)
    for name in ("megatron", "megatron.core"):
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["megatron.core.utils"] = utils
    path = ROOT / "examples" / "python" / variant / "overlapped_forward_backward.py"
    spec = importlib.util.spec_from_file_location(f"overlap_{variant}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.overlapped_forward_backward


class Stage(torch.nn.Module):
    def __init__(self, hidden, layers):
        super().__init__()
        self.layers = torch.nn.Sequential(
            *[torch.nn.Sequential(torch.nn.Linear(hidden, hidden), torch.nn.GELU()) for _ in range(layers)])
        self.input_tensor = None

    def set_input_tensor(self, tensors):  # Megatron's pipeline-stage hook
        self.input_tensor = tensors

    def forward(self, x):
        return self.layers(x)


def forward_step(inputs, module):
    out = module(inputs[0])
    return out, lambda o: (o.float().pow(2).mean(),)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", choices=["seed", "fixed"], required=True)
    p.add_argument("--hidden", type=int, default=2048)
    p.add_argument("--tokens", type=int, default=512)
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--steps", type=int, default=10)
    args = p.parse_args()
    overlapped_forward_backward = load_user_function(args.variant)

    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = False  # fp32 GEMMs: long enough to queue up
    model0 = Stage(args.hidden, args.layers).cuda()
    model1 = Stage(args.hidden, args.layers).cuda()
    x0 = torch.randn(args.tokens, args.hidden, device="cuda")
    x1 = torch.randn(args.tokens, args.hidden, device="cuda", requires_grad=True)
    labels = torch.zeros(args.tokens, device="cuda")
    masks = torch.ones(args.tokens, device="cuda")

    def step():
        out1 = model1(x1)
        loss1 = out1.float().pow(2).mean()
        _, loss0 = overlapped_forward_backward(
            model0, [x0], labels, masks, loss1, None, None, forward_step, True)
        loss0.backward()

    for _ in range(3):  # warm-up: allocator pools, cuBLAS handles
        step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    torch.cuda.synchronize()
    ms = (time.perf_counter() - start) * 1e3 / args.steps
    print(f"{args.variant}: {ms:.2f} ms/step (hidden {args.hidden}, tokens {args.tokens}, "
          f"layers {args.layers})")


if __name__ == "__main__":
    main()
