# A class of the file annotates its fields as tensors; a parameter annotated with the class has
# them (lmdeploy adac4b18: per-output logprobs read with .tolist() in a closure called for every
# output). The file uses CUDA, so the fields are as good a guess as tensor-annotated parameters.
from dataclasses import dataclass

import torch


@dataclass
class InferOutput:
    session_id: int
    logprobs: torch.Tensor = None
    logprobs_cpu: torch.Tensor = None


def send_all(outputs, device="cuda"):
    def send(out: InferOutput):
        vals = out.logprobs[0].tolist()  # expect: SL302
        host = out.logprobs_cpu.tolist()  # a host copy: no wait
        return dict(zip(host, vals))

    for out in outputs:
        send(out)
