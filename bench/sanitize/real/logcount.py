"""One line per log directory for the per-part runs (run_on_gpu.sh PHASE=parts): records by type,
calls by class with the native frames they carry, how many calls have a Python line, and the
trailer's drops. CodeDef and String counts far above a program's code objects and kernels would
mean the recorder's per-thread caches thrash (each miss writes the definition again).

    python logcount.py NAME LOG_DIR
"""
import collections
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "interposer"))
import slog_stats  # noqa: E402  (the benchmarks' reader: record framing, API names from LogFormat.h)

TYPES = {1: "api", 2: "codedef", 3: "module", 4: "activity", 5: "string", 9: "thread", 10: "window",
         11: "access", 12: "gap", 13: "block"}


def count(path):
    data = open(path, "rb").read()
    names = slog_stats.api_names()
    types, calls, frames = collections.Counter(), collections.Counter(), collections.Counter()
    python = 0
    for t, off in slog_stats.records(data):
        types[TYPES.get(t, t)] += 1
        if t == 1:
            api, flags, nf = struct.unpack_from("<HBB", data, off + 4)
            cls = names[api][1] if api < len(names) else "?"
            calls[cls] += 1
            frames[cls] += nf
            python += bool(flags & 2)
    return types, calls, frames, python


def main():
    name, d = sys.argv[1], sys.argv[2]
    total = [collections.Counter() for _ in range(3)]
    python, dropped, windows = 0, 0, 0
    for f in sorted(os.listdir(d)):
        if f.endswith(".slog"):
            *c, py = count(os.path.join(d, f))
            for t, x in zip(total, c):
                t.update(x)
            python += py
            stats = slog_stats.read(os.path.join(d, f), None)
            dropped += (stats["trailer"] or {}).get("dropped", 0)
            windows += stats.get("windows", 0)
    print(json.dumps({"run": name, "records": dict(total[0]), "calls": dict(total[1]),
                      "frames": dict(total[2]), "with_python": python, "dropped": dropped,
                      "windows": windows}), flush=True)


if __name__ == "__main__":
    main()
