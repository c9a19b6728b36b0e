"""`streamlint report DIR PATH...` on logs recorded on the H200 (rules/SL90x-*/*.slog and
tests/runtime/fixtures/overlap/, made by examples/overlap/record_on_gpu.sh): static findings
paired with measured evidence, the measured stream rules, overlap numbers, HTML and trace.

    report_test.py SCENARIO --streamlint BIN
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FIX = os.path.join(HERE, "fixtures", "overlap")
A = None


def rule_log(rule, which):
    folder = next(d for d in os.listdir(os.path.join(ROOT, "rules")) if d.startswith(rule))
    return os.path.join(ROOT, "rules", folder, which + ".slog")


def check(cond, msg):
    if not cond:
        sys.exit("FAIL: " + msg)


def report(*args, ok=(0, 1)):
    p = subprocess.run([A.streamlint, "report", *args], capture_output=True, text=True, cwd=ROOT)
    check(p.returncode in ok, f"report {args} exited {p.returncode}: {p.stderr}")
    return p


def report_json(*args):
    doc = json.loads(report(*args, "--format", "json").stdout)
    return doc["findings"], doc["run"]["processes"]


def find(findings, rule, line=None, path_end=None):
    return [f for f in findings if f["rule"] == rule and (line is None or f["line"] == line)
            and (path_end is None or f["path"].endswith(path_end))]


def streams(procs):
    return {s["stream"]: s for p in procs for s in p["streams"]}


def seed_overlap():
    """The user's overlap: SL401 paired with the measured SL903 on the backward() line."""
    findings, procs = report_json(rule_log("SL903", "bad"), "examples/python/seed/overlapped_forward_backward.py")
    sl401 = find(findings, "SL401", 26)
    check(len(sl401) == 1, f"SL401 at line 26: {findings}")
    rt = sl401[0]["properties"]["runtime"]
    check(rt["status"] == "measured" and "SL903" in rt["measuredBy"], f"SL401 evidence: {rt}")
    check(sl401[0]["path"] == "examples/python/seed/overlapped_forward_backward.py",
          f"runtime paths are relocated to the local sources: {sl401[0]['path']}")
    # One entry per line (issue 32): SL903's measurement is SL401's confirmation, not a second entry.
    check(not find(findings, "SL903", 26), f"SL903 merged into SL401 at line 26: {findings}")
    confirmed = rt.get("confirmedBy", {})
    check(confirmed.get("rule") == "SL903" and "confirmed at runtime (SL903)" in sl401[0]["message"],
          f"SL401 confirmed at runtime by SL903: {sl401[0]}")
    p = confirmed["properties"]
    check(p["offRegionOperations"] >= 0.9 * p["operations"], f"most backward work off the region: {p}")
    side = streams(procs)[p["regionStream"]]
    check(side["busyMicros"] < 0.01 * streams(procs)["default stream 7"]["busyMicros"],
          f"the side stream ran almost nothing: {procs}")
    check(findings[0]["rule"] in ("SL903", "SL401"), f"ranked by cost, the backward line first: {findings[0]}")


def fixed_overlap():
    """The fixed overlap: > 30 % of the smaller stream overlapped, no SL401, SL902 or SL903."""
    findings, procs = report_json(rule_log("SL903", "good"), "examples/python/fixed/overlapped_forward_backward.py")
    rules = {f["rule"] for f in findings}
    check(not rules & {"SL401", "SL902", "SL903"}, f"fixed overlap is clean: {rules}")
    pair = procs[0]["streamPairs"][0]
    smaller_share = max(pair["shareOfA"], pair["shareOfB"])  # the smaller stream's share is the larger
    check(smaller_share > 0.30, f"overlap above 30 % of the smaller stream's busy time: {pair}")
    check(pair["overlappedSlowdown"] > 1.3, f"kernels slowed down while overlapped (GPU saturated): {pair}")
    text = report(rule_log("SL903", "good")).stdout
    check("bought little speed-up" in text, f"the text says why overlap bought little: {text[-800:]}")


def small_chunk():
    """A smaller chunk leaves the GPU waiting on Python launches: SL902."""
    findings, _ = report_json(os.path.join(FIX, "python-fixed-small.slog"))
    sl902 = find(findings, "SL902")
    check(len(sl902) == 1 and sl902[0]["properties"]["overlapShare"] < 0.05, f"{findings}")


def timing_experiment():
    """SL501 paired with the measured drain, SL303 with the cudaMalloc calls and pool growth."""
    src = "examples/python/seed/stream_timing_experiment.py"
    findings, _ = report_json(rule_log("SL902", "bad"), src)
    for line in (15, 27):
        f = find(findings, "SL501", line)
        check(len(f) == 1, f"SL501 at {line}: {findings}")
        rt = f[0]["properties"]["runtime"]
        check(rt["status"] == "measured" and rt["drainMicros"] > 1e6 and rt["intervalOperations"] >= 100,
              f"SL501 at {line} measured a drain of seconds: {rt}")
        check(any("waited for here" in n["message"] for n in f[0]["notes"]), f"paid-at note: {f[0]['notes']}")
    for line in (23, 24):
        f = find(findings, "SL303", line)
        check(len(f) == 1, f"SL303 at {line}: {findings}")
        rt = f[0]["properties"]["runtime"]
        check(rt["apis"].get("cudaMalloc") == 1 and rt["allocatedBytes"] >= 10000 * 10000 * 4,
              f"SL303 at {line} paired with its cudaMalloc: {rt}")
    check(find(findings, "SL902", 26), f"the region's stream overlapped nothing: {findings}")
    fixed, _ = report_json(os.path.join(FIX, "timing-fixed.slog"), "examples/python/fixed/stream_timing_experiment.py")
    check(not find(fixed, "SL501") and not find(fixed, "SL303"), f"fixed timing: {fixed}")


def setup_and_per_step():
    """SL901 sorts measured costs into per-step and one-time set-up (ten training steps and a
    torch.compile'd function on the H200, examples/runtime/launch_count.py): the compiled code's
    blocking calls recur every step (inside generated code: a library), `model.cuda()` at line 19
    is set-up; every per-step finding is listed before every set-up one."""
    findings, _ = report_json(os.path.join(HERE, "fixtures", "h200-launch-count.slog"))
    sl901 = find(findings, "SL901")
    phases = [f["properties"]["phase"] for f in sl901]
    check(set(phases) == {"per-step", "set-up"}, f"both phases: {phases}")
    check(phases == sorted(phases), f"per-step findings first: {phases}")
    setup = find(findings, "SL901", 19, "launch_count.py")
    check(setup and all(f["properties"]["phase"] == "set-up" and not f["properties"]["insideLibrary"] for f in setup)
          and "one-time set-up" in setup[0]["message"], f"model.cuda() is set-up: {setup}")
    step = [f for f in sl901 if f["properties"]["phase"] == "per-step"]
    check(all(f["properties"]["insideLibrary"] and "per-step cost" in f["message"] for f in step),
          f"the per-step costs are the compiled code's: {step}")


def side_streams_one_line():
    """SL902: side streams set off from one line (gloo's pool of copy streams in a two-rank run on
    the H200) are one finding per process and line, naming every stream, not one per stream."""
    findings, _ = report_json(os.path.join(HERE, "fixtures", "ranks", "gloo2-slow"))
    sl902 = find(findings, "SL902")
    keys = [(f["properties"]["pid"], f["path"], f["line"]) for f in sl902]
    check(len(keys) == len(set(keys)), f"one SL902 per process and line: {keys}")
    merged = [f for f in sl902 if len(f["properties"].get("streams", [])) >= 2]
    check(merged and "side streams set off from this line" in merged[0]["message"], f"a merged finding: {sl902}")
    p = merged[0]["properties"]
    check(abs(p["overlapShare"] - p["overlappedMicros"] / p["busyMicros"]) < 1e-9, f"share of the sums: {p}")


def cuda_example():
    """CUDA C++: SL601 (static) paired with SL905 (measured) at the legacy launch line."""
    sym = ("--symbols", os.path.join(FIX, "bin"))
    findings, procs = report_json(rule_log("SL905", "bad"), "examples/overlap/cuda/overlap_bad.cu", *sym)
    sl601 = find(findings, "SL601", 30)
    check(len(sl601) == 1, f"SL601 at line 30: {findings}")
    rt = sl601[0]["properties"]["runtime"]
    check(rt["status"] == "measured" and "SL905" in rt.get("measuredBy", []), f"SL601 evidence: {rt}")
    check(rt.get("confirmedBy", {}).get("rule") == "SL905" and not find(findings, "SL905", 30, "overlap_bad.cu"),
          f"SL905 at the legacy launch, as SL601's confirmation: {findings}")
    fixed, procs = report_json(rule_log("SL902", "good"), "examples/overlap/cuda/overlap_fixed.cu", *sym)
    check(not find(fixed, "SL905") and not find(fixed, "SL902") and not find(fixed, "SL601"), f"{fixed}")
    check(all(s["overlapShare"] > 0.9 for s in procs[0]["streams"]), f"fixed streams overlap: {procs}")


def libtorch_example():
    """LibTorch C++: the guard moves nothing (SL401 paired with the measured SL903 on the
    backward() line, found beneath LibTorch's frames by the recorder's stack scan; SL901 on the two
    stream synchronizes); the fixed forward-on-side-stream overlaps. The program's debug info is
    a fixture (bin/overlap_bad: objcopy --only-keep-debug, compressed)."""
    sym = ("--symbols", os.path.join(FIX, "bin"))
    findings, bad = report_json(os.path.join(FIX, "libtorch-bad.slog"), "examples/overlap/libtorch/overlap_bad.cpp",
                                "--min-blocking-us", "0", *sym)
    sl401 = find(findings, "SL401", 31)
    check(len(sl401) == 1, f"SL401 at line 31: {findings}")
    rt = sl401[0]["properties"]["runtime"]
    check(rt["status"] == "measured" and "SL903" in rt.get("measuredBy", []), f"SL401 evidence: {rt}")
    check(rt.get("confirmedBy", {}).get("rule") == "SL903" and not find(findings, "SL903", 31, "overlap_bad.cpp"),
          f"SL903 at the backward() line, as SL401's confirmation: {findings}")
    for line in (34, 35):
        f = [f for f in find(findings, "SL901", line, "overlap_bad.cpp")
             if f["properties"]["api"] == "cudaStreamSynchronize"]
        check(len(f) == 1 and f[0]["properties"]["calls"] == 10, f"SL901 at {line}, once per step: {findings}")
    s = sorted(streams(bad).values(), key=lambda s: s["busyMicros"])
    check(s[0]["busyMicros"] < 0.01 * s[-1]["busyMicros"], f"side stream nearly idle: {bad}")
    _, fixed = report_json(os.path.join(FIX, "libtorch-fixed.slog"))
    pair = fixed[0]["streamPairs"][0]
    check(max(pair["shareOfA"], pair["shareOfB"]) > 0.30, f"fixed LibTorch overlap: {pair}")


def static_sarif():
    """--static: findings made elsewhere (SARIF from `check`) pair like analysed sources."""
    with tempfile.TemporaryDirectory() as tmp:
        sarif = os.path.join(tmp, "static.sarif")
        p = subprocess.run([A.streamlint, "check", "examples/python/seed", "--format", "sarif"],
                           capture_output=True, text=True, cwd=ROOT)
        check(p.returncode == 1, p.stderr)
        open(sarif, "w").write(p.stdout)
        findings, _ = report_json(rule_log("SL903", "bad"), "--static", sarif)
        check(find(findings, "SL401", 26)[0]["properties"]["runtime"]["status"] == "measured", f"{findings}")
        bad = os.path.join(tmp, "bad.sarif")
        open(bad, "w").write("{not json")
        p = report(rule_log("SL903", "bad"), "--static", bad, ok=(2,))
        check("bad.sarif" in p.stderr, p.stderr)
        p = report(rule_log("SL903", "bad"), "--static", tmp, ok=(2,))
        check("not a file" in p.stderr, f"a directory as --static: {p.stderr}")
        # Nested a million levels deep (a copy of it overflowed the stack): an input error.
        deep = os.path.join(tmp, "deep.sarif")
        open(deep, "w").write('{"runs": [{"results": [{"ruleId": "SL401", "properties": {"x": '
                              + "[" * 1000000 + "]" * 1000000 + '}, "locations": []}]}]}')
        p = report(rule_log("SL903", "bad"), "--static", deep, ok=(2,))
        check("deep.sarif" in p.stderr and "nested more than" in p.stderr, f"deep SARIF: {p.stderr}")
        p = report(rule_log("SL903", "bad"), "--format", "sarif")
        doc = json.loads(p.stdout)
        check("processes" in doc["runs"][0]["properties"], "SARIF run properties carry the overlap")


def output_failures():
    """The report that did not arrive is an error (exit 2, said on stderr), not 0 or 1: stdout on
    a full device, -o into a missing directory. `-o FILE` (docs/ranks.md) writes what stdout would."""
    log = rule_log("SL903", "bad")
    with open("/dev/full", "w") as full:
        p = subprocess.run([A.streamlint, "report", log], stdout=full, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 2 and "cannot write the report to stdout" in p.stderr, f"/dev/full: {p.returncode} {p.stderr}")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "ranks.sarif")
        want = report(log, "--format", "sarif")
        p = report(log, "--format", "sarif", "-o", out)
        check(p.returncode == want.returncode and p.stdout == "", f"-o: {p.returncode} {p.stdout[:200]}")
        got, expected = json.loads(open(out).read()), json.loads(want.stdout)
        for doc in (got, expected):  # the command line differs by the -o
            doc["runs"][0].get("invocations", [{}])[0].pop("commandLine", None)
        check(got == expected, "-o FILE holds another report than stdout")
        p = report(log, "-o", os.path.join(tmp, "no", "such", "r.txt"), ok=(2,))
        check("cannot write the report" in p.stderr, p.stderr)


def html_and_trace():
    """--html and --trace write a page and a trace whose launch->kernel flows have both ends."""
    with tempfile.TemporaryDirectory() as tmp:
        html, trace = os.path.join(tmp, "r.html"), os.path.join(tmp, "t.json")
        report(rule_log("SL903", "bad"), "examples/python/seed", "--html", html, "--trace", trace)
        page = open(html).read()
        check("SL903" in page and "loss1.backward()" in page, "the page shows the finding and its source")
        events = json.load(open(trace))
        events = events["traceEvents"] if isinstance(events, dict) else events
        flows = [e for e in events if e.get("ph") in ("s", "f")]
        check(len(flows) > 1000, f"launch->kernel flows: {len(flows)}")
        p = report(rule_log("SL903", "bad"), "--html", os.path.join(tmp, "no", "such", "dir.html"), ok=(2,))
        check("cannot write" in p.stderr, p.stderr)


def sampled_overlap():
    """The seed overlap recorded with sampled GPU timing (`--gpu-sample 10ms/40ms --gpu-first 0`,
    40 steps): the report says what the GPU figures cover, every timed GPU op is joined to its
    launch across the windows, and SL903 still fires from the windows alone."""
    log = os.path.join(FIX, "python-seed-sampled.slog")
    findings, procs = report_json(log, "examples/python/seed")
    cov = procs[0]["gpuTimingCoverage"]
    check(cov["mode"] == "sampled" and cov["sampled"] and cov["windows"] == 6, f"coverage: {cov}")
    check(0 < cov["timedShare"] < 0.5 and 0 < cov["timedCalls"] < cov["calls"], f"coverage: {cov}")
    check(cov["summary"].startswith("GPU timing sampled: 6 windows"), cov["summary"])
    text = report(log, "examples/python/seed").stdout
    check(text.splitlines()[0] == cov["summary"], f"the text report opens with the coverage: {text[:300]}")
    sl401 = find(findings, "SL401", 26)
    sl903 = [sl401[0]["properties"]["runtime"]["confirmedBy"]] if sl401 else []  # one entry per line
    check(sl903 and sl903[0]["rule"] == "SL903" and "in the timed windows (" in sl903[0]["message"],
          f"SL903 at line 26, confirming SL401: {findings}")
    check(sl903[0]["properties"]["gpuTiming"]["mode"] == "sampled", f"{sl903[0]['properties']}")
    check(len(sl401) == 1 and sl401[0]["properties"]["runtime"]["status"] == "measured", f"SL401: {findings}")
    check("of its" in sl401[0]["message"] and "calls in the timed windows" in sl401[0]["message"],
          f"SL401 says which of its calls were timed: {sl401[0]['message']}")
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.json")
        report(log, "--trace", trace)
        events = json.load(open(trace))
        events = events["traceEvents"] if isinstance(events, dict) else events
        ops = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "memcpy", "memset")]
        starts = [e for e in events if e.get("ph") == "s"]
        check(ops and len(starts) == len(ops), f"every timed GPU op joined to its launch: {len(starts)} of {len(ops)}")
        check(len([e for e in events if e.get("name") == "GPU timed"]) == 6, "one trace slice per window")


def autograd_thread_lines():
    """Blocking calls of autograd's backward thread (no Python frames: their own site is a native
    caller inside torch) are SL901 findings at the `backward()` line that set them off, saying so
    and keeping the native site as evidence (the seed example on the H200: rules/SL903-*/bad.slog;
    two backward() lines in one step, each with its own share). No SL901 is left at a torch or
    cuBLAS module."""
    findings, _ = report_json(rule_log("SL903", "bad"))
    sl901 = find(findings, "SL901")
    seed = [f for f in find(sl901, "SL901", 26, "overlapped_forward_backward.py") if f["properties"].get("attributedBy")]
    copies = [f for f in seed if f["properties"]["api"] == "cudaMemcpyAsync"]
    check(len(copies) == 1 and copies[0]["properties"]["attributedBy"] == "call order"
          and any(a.endswith("libtorch_cuda.so+0x17ab117") for a in copies[0]["properties"]["attributedFrom"])
          and "queued for this line by a thread without Python code" in copies[0]["message"]
          and "made at libtorch_cuda.so+0x17ab117" in copies[0]["message"]
          and not copies[0]["properties"]["insideLibrary"],
          f"autograd's copies at loss1.backward(): {seed}")
    other = find(sl901, "SL901", 87, "train_overlap.py")
    check(any(f["properties"].get("attributedBy") for f in other), f"loss0.backward()'s share at line 87: {other}")
    native = [f["path"] for f in sl901 if ".so" in f["path"].rsplit("/", 1)[-1]]
    check(not native, f"SL901 left at native libraries: {native}")


def dataloader_threads():
    """A DataLoader's pin-memory thread and autograd's backward thread on the H200
    (examples/runtime/dataloader_backward.py, recorded by examples/runtime/record_threads_on_gpu.sh):
    SL901 places the pin-memory thread's calls at `for x, y in loader:` (it started the thread:
    the recorder's thread record), autograd's at `loss.backward()` (call order); no SL901 is left
    at torch's pin_memory.py, threading.py or a native caller inside torch."""
    src = os.path.join(ROOT, "examples", "runtime", "dataloader_backward.py")
    lines = open(src).read().splitlines()
    loop = next(i for i, l in enumerate(lines, 1) if l.strip() == "for x, y in loader:")
    backward = next(i for i, l in enumerate(lines, 1) if l.strip() == "loss.backward()")
    findings, _ = report_json(os.path.join(HERE, "fixtures", "h200-dataloader-backward.slog"), src,
                              "--min-blocking-us", "0")
    sl901 = find(findings, "SL901")
    pinned = [f for f in find(sl901, "SL901", loop, "dataloader_backward.py") if f["properties"].get("attributedBy")]
    check(pinned and all("thread start" in f["properties"]["attributedBy"] for f in pinned)
          and any("pin-memory" in t for f in pinned for t in f["properties"]["attributedThreads"]),
          f"the pin-memory thread's calls at line {loop}: {sl901}")
    grads = [f for f in find(sl901, "SL901", backward, "dataloader_backward.py") if f["properties"].get("attributedBy")]
    check(grads and any("autograd" in t for f in grads for t in f["properties"]["attributedThreads"]),
          f"autograd's calls at line {backward}: {sl901}")
    left = [f["path"] for f in sl901 if f["path"].endswith(("pin_memory.py", "threading.py"))]
    check(not left, f"SL901 left at library lines: {left}")


def advice_fits_the_call():
    """Issue 32, on the H200 logs: a stream made once at module level (`calc_stream =
    torch.cuda.Stream()`, 4.8 s waiting for queued matmuls) is not told to create streams once;
    `print(step, float(z[0]))`'s pinned staging buffer (cudaHostAlloc) is not told to avoid
    empty_cache(); streams carry the source's names; set-up sites are notes."""
    timing = os.path.join(HERE, "fixtures", "h200-timing-experiment.slog")
    findings, _ = report_json(timing)
    create = [f for f in find(findings, "SL901", 19, "stream_timing_experiment.py")
              if f["properties"]["api"].startswith("cudaStreamCreate")]
    check(create and "create streams once" not in create[0]["message"]
          and "creates its streams once" in create[0]["message"], f"stream made once: {create}")
    check(all(f["severity"] == "note" for f in create), f"one-time set-up is a note: {create}")
    race_log = rule_log("SL904", "bad")
    findings, _ = report_json(race_log)
    pinned = [f for f in find(findings, "SL901", 12, "missing_wait.py") if f["properties"]["api"] == "cudaHostAlloc"]
    check(pinned and "empty_cache" not in pinned[0]["message"] and "float(t)" in pinned[0]["message"],
          f"print(float(z[0])) staging buffer: {pinned}")
    # Streams by the source's names, the number beside (the seed's side stream is stream 14).
    findings, procs = report_json(rule_log("SL903", "bad"), "examples/python/seed")
    check("backward_stream (stream 14)" in streams(procs), f"stream names: {list(streams(procs))}")
    text = report(rule_log("SL903", "bad"), "examples/python/seed").stdout
    check("on backward_stream (stream 14)" in text and "region on stream 14" not in text, f"text names: {text[:1500]}")
    # Text folds the set-up sites into one note entry; JSON keeps each (as notes).
    check(text.count("one-time set-up blocked the host for") == 1, f"one folded set-up entry: {text[-3000:]}")
    setup_json = [f for f in findings if f["rule"] == "SL901" and f["properties"].get("phase") == "set-up"]
    check(len(setup_json) > 1 and all(f["severity"] == "note" for f in setup_json), f"JSON set-up sites: {setup_json}")


SCENARIOS = {f.__name__: f for f in (seed_overlap, fixed_overlap, small_chunk, timing_experiment,
                                     cuda_example, libtorch_example, static_sarif, output_failures, html_and_trace,
                                     sampled_overlap, setup_and_per_step, side_streams_one_line,
                                     autograd_thread_lines, dataloader_threads, advice_fits_the_call)}


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    ap.add_argument("--streamlint", required=True)
    A = ap.parse_args()
    SCENARIOS[A.scenario]()
    print("ok", A.scenario)


if __name__ == "__main__":
    main()
