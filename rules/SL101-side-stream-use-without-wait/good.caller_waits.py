# The producer is not in sight here (the caller's value): nothing before the region waits, but
# a caller or helper usually does, and no other function of this module waits for `side`
# before its region. Reported only with --min-confidence low.
import torch

side = torch.cuda.Stream()


def parameter_produced_by_the_caller(a: torch.Tensor):
    with torch.cuda.stream(side):
        c = a * 2  # low confidence (reported at the region's header): shown with --min-confidence low
    return c
