"""Counts in .slog logs for benchmarks and GPU checks (the analyzer's C++ reader is the real one;
this reads only what the benchmark scripts need). Usage:
    slog_stats.py LOG_OR_DIR [--window T0 T1]   -> JSON: API counts (successful calls), launches,
                                                  GPU activity counts (kernels_named: with a name; anchored: with the launching call's id),
                                                  trailer fields, GPU timing windows (count, timed seconds) and
                                                  launches_timed: launches begun inside a window."""
import json
import os
import struct
import sys

API_NAMES = None  # filled from LogFormat.h so that the two cannot drift


def api_names():
    here = os.path.dirname(os.path.abspath(__file__))
    header = os.path.join(here, "..", "..", "interposer", "include", "streamlint", "LogFormat.h")
    text = open(header).read()
    start = text.index("#define SL_API_LIST(X)")
    end = text.index("enum class ApiClass")
    import re
    return [(m.group(1), m.group(2)) for m in re.finditer(r"X\((\w+), (\w+)\)", text[start:end])]


def records(data, out=None):
    """(type, offset) of each record in a log's bytes, in file order. Stops at the first damaged
    chunk, whose offset goes to out["damaged_at"]."""
    if data[:4] != b"SLOG":
        return
    off = struct.unpack_from("<I", data, 12)[0]
    while off + 16 <= len(data):
        magic, size, _csum, _tid = struct.unpack_from("<IIII", data, off)
        if magic != 0x4B434C53 or off + 16 + size > len(data):
            if out is not None:
                out["damaged_at"] = off
            return
        p, end = off + 16, off + 16 + size
        while p + 4 <= end:
            rtype, rbytes = struct.unpack_from("<HH", data, p)
            if rbytes == 0:
                break
            yield rtype, p
            p += rbytes
        off = end


def read(path, window):
    names = api_names()
    out = {"file": os.path.basename(path), "apis": {}, "launches": 0, "activities": {}, "trailer": None,
           "kernel_names": {}}
    strings, launch_ids, launch_times, switches = {}, [], [], []
    data = open(path, "rb").read()
    for rtype, p in records(data, out):
        if rtype == 1:
            api, flags, nframes, t_enter, t_exit, ret = struct.unpack_from("<HBBQQi", data, p + 4)
            if ret == 0 and (window is None or window[0] <= t_enter <= window[1]):
                name, cls = names[api]
                out["apis"][name] = out["apis"].get(name, 0) + 1
                if cls == "Launch":
                    out["launches"] += 1
                    launch_ids.append(struct.unpack_from("<I", data, p + 80)[0])
                    launch_times.append(t_enter)
        elif rtype == 4:
            kind = data[p + 4]
            k = {1: "kernels", 2: "memcpy", 3: "memset"}.get(kind, "other")
            out["activities"][k] = out["activities"].get(k, 0) + 1
            if kind == 1 and struct.unpack_from("<I", data, p + 52)[0]:
                out["activities"]["kernels_named"] = out["activities"].get("kernels_named", 0) + 1
            if struct.unpack_from("<Q", data, p + 24)[0]:
                out["activities"]["anchored"] = out["activities"].get("anchored", 0) + 1
        elif rtype == 5:
            sid, slen = struct.unpack_from("<II", data, p + 4)
            strings[sid] = data[p + 12:p + 12 + slen].decode(errors="replace")
        elif rtype == 7:
            vals = struct.unpack_from("<QQQQQQII", data, p + 8)
            out["trailer"] = dict(zip(["records", "dropped", "droppedThreads", "peakBytes",
                                       "capBytes", "activityDropped", "cuptiState", "gpuTiming"], vals))
        elif rtype == 10:
            on, _why = data[p + 4], data[p + 5]
            t_before, t_after = struct.unpack_from("<QQ", data, p + 16)
            switches.append((t_before, on, t_after))
    if switches:  # timed intervals: an `on` switch's tBefore to the next `off` switch's tAfter
        spans, begin = [], None
        for t_before, on, t_after in sorted(switches):
            if on and begin is None:
                begin = t_before
            elif not on and begin is not None:
                spans.append((begin, t_after))
                begin = None
        if begin is not None:
            spans.append((begin, float("inf")))
        import bisect
        starts = [a for a, _ in spans]
        out["windows"] = len(spans)
        cost = sorted(t_after - t_before for t_before, _on, t_after in switches)
        out["switch_us"] = {"median": round(cost[len(cost) // 2] / 1e3, 1), "max": round(cost[-1] / 1e3, 1)}
        out["timed_s"] = round(sum(b - a for a, b in spans if b != float("inf")) / 1e9, 3)
        out["launches_timed"] = sum(1 for t in launch_times
                                    if (k := bisect.bisect_right(starts, t) - 1) >= 0 and t <= spans[k][1])
    for i in launch_ids:
        n = strings.get(i, "?")
        out["kernel_names"][n] = out["kernel_names"].get(n, 0) + 1
    if "--names" not in sys.argv:
        del out["kernel_names"]
    return out


def main():
    target = sys.argv[1]
    window = None
    if "--window" in sys.argv:
        i = sys.argv.index("--window")
        window = (int(sys.argv[i + 1]), int(sys.argv[i + 2]))
    files = [target] if os.path.isfile(target) else sorted(
        os.path.join(target, f) for f in os.listdir(target) if f.endswith(".slog"))
    print(json.dumps([read(f, window) for f in files], indent=1))


if __name__ == "__main__":
    main()
