# A module named for logging: what it gathers is shown, not computed on (Megatron-LM's
# moe_logging.py aggregates per-expert metrics when the trainer logs).
import torch


def aggregate(metrics, percentiles):
    out = {}
    for name, values in metrics.items():
        values = values.cuda()
        out[name] = torch.quantile(values, torch.tensor(percentiles[name], device=values.device)).tolist()
    return out
