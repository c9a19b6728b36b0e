import queue

import torch
from project.schedules import RingSlot, SchedulePlan

SIDE = torch.cuda.Stream()


class Overlap:
    def __init__(self):
        self.side = torch.cuda.Stream()


def cached(device):
    if not hasattr(cached, "streams"):
        cached.streams = {}
    if device not in cached.streams:
        cached.streams[device] = torch.cuda.Stream(device=device)
    return cached.streams[device]


def make_stream():
    s = torch.cuda.Stream()
    return s


def graph_warmup(model, x):
    # torch.cuda.Stream() outside a loop takes a pooled stream: a cheap lookup, not a driver call.
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        model(x)
    torch.cuda.current_stream().wait_stream(s)


class EventPool:
    def __init__(self, n):
        self.free = queue.Queue()
        for _ in range(n):
            self.free.put(torch.cuda.Event(enable_timing=True))


def mark_each(names):
    events = {}
    for name in names:
        ev = torch.cuda.Event()
        ev.record()
        events[name] = ev
    return events


def attach(groups):
    for group in groups:
        stream = torch.cuda.Stream()
        for member in group:
            member.stream = stream


def timing_events(model, tokens, steps):
    events = []
    for _ in range(steps):
        events.append(torch.cuda.Event(enable_timing=True))
        events[-1].record()
    return events


def ring_slots(buffers):
    # Each slot keeps its event (passed by keyword to a constructor): created once per slot,
    # not per use (Megatron-LM's gtp_cuda_graphs ring buffer).
    slots = []
    for tensor in buffers:
        slot = RingSlot(tensor=tensor, ready_event=torch.cuda.Event(external=True))
        slots.append(slot)
    return slots


def schedule_plans(layers, make_plan):
    # An event handed to a project class imported from elsewhere may be kept by it.
    plans = []
    for layer in layers:
        event = torch.cuda.Event()
        plans.append(SchedulePlan(layer, event))
    return plans
