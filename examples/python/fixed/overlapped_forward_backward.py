from typing import List, Optional, Callable
import torch
from megatron.core.utils import get_attr_wrapped_model


def overlapped_forward_backward(
    module0: torch.nn.Module,
    inputs0: List[torch.Tensor],
    labels0: Optional[List[torch.Tensor]],
    loss_masks0: Optional[List[torch.Tensor]],
    loss1: Optional[torch.Tensor],
    outputs1: Optional[List[torch.Tensor]],
    output_grads1: Optional[List[torch.Tensor]],
    forward_step_func: Callable,
    is_last_stage0: bool,
) -> tuple[torch.Tensor, Optional[torch.Tensor]]:
    """Forward of micro-batch 0 on a side stream while micro-batch 1's backward runs on the
    current stream.

    Autograd runs every backward op on the stream its forward op used, so wrapping backward()
    in a stream region moves nothing. What can move is the *forward* of the other micro-batch:
    its kernels then run on the side stream (and so will its own backward later). Whether the
    two really overlap depends on free GPU resources: `streamlint report` measures it.
    """
    device = inputs0[0].device
    if not hasattr(overlapped_forward_backward, 'forward_streams'):
        overlapped_forward_backward.forward_streams = {}
    if device not in overlapped_forward_backward.forward_streams:
        overlapped_forward_backward.forward_streams[device] = torch.cuda.Stream(device=device)
    forward_stream = overlapped_forward_backward.forward_streams[device]

    # The side stream must not start before the inputs produced on the current stream exist.
    forward_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(forward_stream):
        if len(inputs0) == 1:
            set_input_tensor = get_attr_wrapped_model(module0, "set_input_tensor")
            set_input_tensor(inputs0)
        if is_last_stage0:
            inputs0_with_labels_loss_masks = list(inputs0)
            inputs0_with_labels_loss_masks.append(labels0)
            inputs0_with_labels_loss_masks.append(loss_masks0)
            outputs0, loss_func = forward_step_func(inputs0_with_labels_loss_masks, module0)
        else:
            outputs0, loss_func = forward_step_func(inputs0, module0)
        outputs0 = [outputs0] if isinstance(outputs0, torch.Tensor) else outputs0
        loss0 = loss_func(outputs0[0])[0] if is_last_stage0 else None

    # Backward of micro-batch 1 on the current stream, where its forward ran.
    if loss1 is not None:
        loss1.backward()
        loss1.detach_()
    else:
        run_backward(outputs1, output_grads1)

    # Join: the caller's stream must see the forward's results.
    torch.cuda.current_stream().wait_stream(forward_stream)
    return outputs0, loss0
