# A closure the function defines and calls: its body runs at the call, on the function's own
# names. The all-gather helper reads `a`, produced on the current stream, on `ag_stream`, and
# nothing made `ag_stream` wait for the current stream first (the fork was deleted).
import torch


def push_all_gather(a, workspace, stream):
    with torch.cuda.stream(stream):
        workspace.copy_(a, non_blocking=True)


def all_gather_gemm(a, b, workspace, ag_stream):
    current_stream = torch.cuda.current_stream()
    a = a.to("cuda", torch.bfloat16)

    def call_ag():
        push_all_gather(a, workspace, ag_stream)  # expect: SL101

    call_ag()
    current_stream.wait_stream(ag_stream)
    return workspace @ b
