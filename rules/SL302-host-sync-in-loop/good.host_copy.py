# Reading a host copy: once `.cpu()` has copied the tensor, its rows and elements are in host
# memory, whatever the source was. One blocking copy before the loop is the fix SL302 asks for
# (fairseq's n-gram blocker), and the loop over the copy reads no GPU.
# examples: --min-confidence low (not even a guess)
import torch


def banned_ngrams(tokens, n):
    cpu_tokens = tokens.cpu()
    banned = []
    for row in range(n):
        banned.append(cpu_tokens[row].tolist())
    return banned


def last_tokens(n):
    on_host = torch.zeros(n, 4, device="cuda").cpu()
    return [on_host[i][-1].item() for i in range(n)]
