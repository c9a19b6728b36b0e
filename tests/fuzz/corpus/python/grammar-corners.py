# Python the grammar must take (seeds for fuzz_python; the rule examples are replayed too).
import torch


def unpack_star():
    return None, *(None,) * 2


def walrus(xs):
    if (n := len(xs)) > 3:
        return [y for x in xs if (y := x * 2)]
    return n


def matcher(cmd):
    match cmd:
        case {"op": "sync", **rest}:
            torch.cuda.synchronize()
        case [first, *others] if others:
            return first
        case _:
            pass


async def agen(s):
    async with s as ctx:
        async for item in ctx:
            yield f"{item!r:>{10}} {f'{item}'}"


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor, /, *, scale: float = 1.0) -> torch.Tensor:
        with torch.cuda.stream(torch.cuda.Stream()) if x.is_cuda else open("/dev/null") as s:
            return x * scale
