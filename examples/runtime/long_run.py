"""A steady light training loop for `--seconds` (default 600): shows that the recorder's memory
stays under its cap on long runs. Prints this process's RSS every 60 s."""
import sys
import time

import torch
import torch.nn as nn


def rss_mib():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main():
    seconds = float(sys.argv[sys.argv.index("--seconds") + 1]) if "--seconds" in sys.argv else 600
    model = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(256, 512, device="cuda")
    y = torch.randint(0, 10, (256,), device="cuda")
    start = last = time.monotonic()
    steps = 0
    while time.monotonic() - start < seconds:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if steps % 20 == 0:
            loss.item()  # a host sync per 20 steps, as logging loops do
            time.sleep(0.005)
        steps += 1
        if time.monotonic() - last >= 60:
            last = time.monotonic()
            print(f"t={last - start:.0f}s steps={steps} rss={rss_mib():.1f} MiB", flush=True)
    torch.cuda.synchronize()
    print(f"done steps={steps} rss={rss_mib():.1f} MiB", flush=True)


if __name__ == "__main__":
    main()
