# Helpers whose callers hand them host tensors, or call them only in set-up code.
import torch


class Vocab:
    def build(self, counts):
        table = torch.tensor(counts)  # a host tensor
        return [self.entry(table, i) for i in range(len(counts))]

    def entry(self, table, i):
        return table[i].item()


def init_tables(sizes, device="cuda"):
    # set-up, once: not per-step code, so a helper called per item here is not per step
    ids = torch.arange(8, device=device)
    return [first_id(ids, n) for n in sizes]


def first_id(ids, n):
    return ids[:n].tolist()
