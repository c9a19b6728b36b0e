import torch


def overlap(chunks):
    for c in chunks:
        s = torch.cuda.Stream()  # expect: SL602
        done = torch.cuda.Event()  # expect: SL602
        with torch.cuda.stream(s):
            pass
        done.record()


def per_item(items):
    return [torch.cuda.Stream() for _ in items]  # kept in the returned list: not flagged


def fresh_in_loop(xs):
    for x in xs:
        with torch.cuda.stream(torch.cuda.Stream()):  # expect: SL602
            pass
